"""`mldebug-mcp audit`: checks the bundled content and returns problems, never raises on bad content."""

from .run import audit_content

__all__ = ["audit_content"]
