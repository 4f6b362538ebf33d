"""Pure image work with no side effects: rendering PNGs, validating and drawing masks, measuring image quality.

A package of its own because several layers use it and none owns it: the image agent's Executor and Critic
(activities), the gateway's mask intake (api), and the content supervisor's image and reference analysis. Its
functions are synchronous CPU work on bytes; async callers run them in a thread (ARCHITECTURE rule 12).
"""
