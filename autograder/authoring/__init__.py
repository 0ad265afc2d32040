"""For exercise authors: ``dev check`` (every exercise proven) and ``dev new`` (a master from the template)."""
