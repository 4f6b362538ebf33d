"""Image work that belongs to no family and no layer: rendering PNGs, validating and drawing masks, measuring image
quality, the image providers (`providers/`, the local renderer in `image_provider.py`) and the guarded fetch of an
image a user named by URL (`fetch.py`).

A package of its own because several layers use it and none owns it: the image agent's Executor and Critic
(activities), the gateway's mask intake (api), and the content supervisor's image and reference analysis. Its
pixel functions are synchronous CPU work on bytes; async callers run them in a thread (ARCHITECTURE rule 12).
"""
