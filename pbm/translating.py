"""``python -m pbm.translating``: the translators' tools (`pbm.words.translating`) under the
name the Makefile and the README give them."""

import sys

from pbm.words.translating import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
