"""The gateway's routers: chat (image agent), runs (shared by every workflow family), blobs, graphs."""
