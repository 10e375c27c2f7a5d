"""``python -m ember.demo``: see :mod:`ember.demo`."""

import sys

from ember.demo import main

if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        # Ctrl-C is the user's choice, not a crash: no traceback (128 + SIGINT, as a shell says)
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
