"""``python -m skeinhw.explore``: the ``skeinhw explore`` command."""

import sys

from .cli import main

sys.exit(main())
