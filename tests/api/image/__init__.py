"""The gateway's image-agent tests: chat, masks, inpainting through HTTP."""
