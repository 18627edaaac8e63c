"""Predicates shared by the lint rules. A rule imports helpers, never another rule."""
