"""HTML fragments from small Jinja templates, with every value escaped (autoescape on).

>>> str(html_fragment("<p>{{ text }}</p>", text="<script>x</script>"))
'<p>&lt;script&gt;x&lt;/script&gt;</p>'
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

__all__ = ["html_fragment", "render_template", "TEMPLATES"]

#: The folder of the report's templates.
TEMPLATES = Path(__file__).parent / "templates"


@lru_cache(maxsize=1)
def _html_env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    return env


@lru_cache(maxsize=1)
def _text_env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )


@lru_cache(maxsize=256)
def _compiled(source: str) -> jinja2.Template:
    return _html_env().from_string(source)


def html_fragment(source: str, **values: Any) -> Markup:
    """Render the Jinja template ``source`` with ``values`` escaped; returns safe HTML.

    Values that are already :class:`markupsafe.Markup` (a table, a chart) are inserted as they are.
    """
    return Markup(_compiled(source).render(**values))


def render_template(name: str, **values: Any) -> str:
    """Render a template file of the report (``*.html`` escaped, anything else as plain text)."""
    env = _html_env() if name.endswith(".html") else _text_env()
    return env.get_template(name).render(**values)
