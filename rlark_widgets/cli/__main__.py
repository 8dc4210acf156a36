"""``python -m rlark_widgets.cli`` runs ``rlark-migrate``."""

import sys

from . import main

sys.exit(main())
