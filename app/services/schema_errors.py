"""A JSON-schema error said to a model or an agent briefly: where, and what bound or type failed, never the
whole offending value back (a 5,000-item list or a 100,000-character string would come back in jsonschema's own
message). Pure."""

from __future__ import annotations

import jsonschema

MAX_CHARS = 300
_BOUNDS = {"maxLength": "at most {v} characters", "minLength": "at least {v} character(s)",
           "maxItems": "at most {v} items", "minItems": "at least {v} item(s)", "maximum": "at most {v}",
           "minimum": "at least {v}", "pattern": "text matching {v}", "minProperties": "at least {v} key(s)",
           "uniqueItems": "no repeated items"}


def brief(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.path)
    what = _what(error)
    return (f"{where}: {what}" if where else what)[:MAX_CHARS]


def _what(error: jsonschema.ValidationError) -> str:
    if error.validator == "anyOf" and error.context:
        # the alternative of the value's own type said what is wrong with it ("at most 20 items")
        closer = [e for e in error.context if e.validator != "type" and not e.path]
        if closer:
            return _what(closer[0])
        return "not of an accepted type (see the tool's schema)"
    if error.validator in _BOUNDS:
        return "must be " + _BOUNDS[error.validator].format(v=error.validator_value)
    return error.message if len(error.message) <= MAX_CHARS else f"fails {error.validator} (see the tool's schema)"
