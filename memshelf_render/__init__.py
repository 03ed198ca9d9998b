"""memshelf-bot's pure core: shelf model, one parser, one rule catalog, renderers.

Nothing here touches the network or imports PyGithub; matplotlib and cairosvg are
imported lazily, only when a chart or a PNG is actually drawn.
"""

__version__ = "0.1.0"
