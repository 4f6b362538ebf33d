"""Tests of the image providers shared by the image and content families."""
