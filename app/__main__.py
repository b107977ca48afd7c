"""Entry point so the whole platform is driven by `python -m app`."""

import sys

from app.cli import main

sys.exit(main())
