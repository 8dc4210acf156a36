"""Image references as registries read them: the distribution grammar, through docker-image-py.

A reference with a space, an uppercase repository, a newline, a NUL or a malformed digest
passed ``check`` and failed on every node as InvalidImageName. This is the one parser of image
references: the JOB-IMAGE-REFERENCE rule uses it, so ``check``, ``plan``, ``export`` and the app
refuse the same strings. The library's regex ends with ``$``, which also matches before a final
newline, so whitespace and control characters are refused before it is asked.
"""

from __future__ import annotations

import json
import re

from docker_image.digest import InvalidDigest
from docker_image.reference import InvalidReference, NameContainsUppercase, NameTooLong, Reference

from ..i18n import Text

_UNPRINTABLE = re.compile(r"[\s\x00-\x1f\x7f]")


def image_reference_problem(image: str) -> Text | None:
    """Why no registry resolves ``image`` (None: it parses as [registry/]path[:tag][@digest])."""
    shown = json.dumps(image, ensure_ascii=False)  # a newline or a NUL shows as \n, \u0000
    if _UNPRINTABLE.search(image):
        return Text(
            "{image} holds a space, a newline or a control character: no registry resolves it.",
            image=shown,
        )
    try:
        Reference.parse_normalized_named(image)
    except InvalidDigest:
        reason = Text("the digest must be sha256: followed by 64 hex digits")
    except NameContainsUppercase:
        reason = Text("the repository name must be lowercase")
    except NameTooLong:
        reason = Text("the repository name is longer than 255 characters")
    except InvalidReference as exc:
        reason = (
            Text("the repository name must be lowercase")
            if "lowercase" in str(exc)
            else Text("it is not [registry/]path[:tag][@sha256:digest]")
        )
    else:
        return None
    return Text("{image} is not an image reference: {reason}.", image=shown, reason=reason)
