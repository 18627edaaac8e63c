"""Text rendering, one module per family: a result model in, text out. Renderers never load content."""
