from .wote import wote

__all__ = ["wote"]
