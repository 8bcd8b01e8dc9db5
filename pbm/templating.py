"""The jinja2 environment for mails (``templates/mail``, ``templates/help``) and pages.

Plain-text templates are not escaped; HTML templates always are (``.html``).
Undefined names are errors, so a template typo fails a test instead of
mailing a blank.
"""

from __future__ import annotations

import jinja2

from pbm.resources import resource_dir


def make_environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(resource_dir("templates")),
        autoescape=jinja2.select_autoescape(["html"], default_for_string=False, default=False),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
