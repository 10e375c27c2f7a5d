"""``python -m ember.demo``: see :mod:`ember.demo`."""

import sys

from ember.demo import main

if __name__ == "__main__":
    sys.exit(main())
