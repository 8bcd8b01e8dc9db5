import sys

from pbm.cli import main

sys.exit(main())
