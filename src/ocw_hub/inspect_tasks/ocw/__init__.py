from .ocw import ocw_connections, ocw_grouping

__all__ = ["ocw_connections", "ocw_grouping"]
