"""What the command line and the site show, beneath both: interface words, number formats,
language-neutral tables and SVG figures. Labs build their tables and figures from these; the
site and the terminal render them. Nothing here imports a lab or the site.
"""
