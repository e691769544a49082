"""The words a JSON Lines record gives beside its text for the media it shares.

A chat turn that shares a picture often says little itself ("Here's my latest one!") while
the line describes the picture under a key of its own: ``caption``, ``blip_caption`` (an
image-captioning model's words), ``alt_text``. Left in ``meta``, those words could never be
searched, and they are often all the record says of what it shows.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ._shared import key_words

__all__ = ["media_words"]

# A key's last word names a description of media: "caption", "imageCaption", "blip_caption",
# "alt", "img_alt". "description" is not one: records use it for what they are about (a
# ticket's, a product's), which a text already says.
_LAST_WORDS = frozenset({"caption", "captions", "alt"})
# Keys whose last word says less than the whole ("alt_text": its "text" would match a body).
_WHOLE_KEYS = frozenset({"alttext", "alt_text", "image_description", "imagedescription"})


def describes_media(key: str) -> bool:
    """Tell whether a JSON key names words describing shared media.

    Example:
        >>> [describes_media(k) for k in ("blip_caption", "imageCaption", "altText", "alt")]
        [True, True, True, True]
        >>> [describes_media(k) for k in ("description", "captioned_by", "text", "salt")]
        [False, False, False, False]
    """
    if key.lower() in _WHOLE_KEYS or key.replace("-", "_").lower() in _WHOLE_KEYS:
        return True
    parts = key_words(key)
    return bool(parts) and parts[-1] in _LAST_WORDS


def media_words(obj: Mapping[str, Any], used: Collection[str]) -> dict[str, str]:
    """Return the fields of ``obj`` not in ``used`` that describe shared media, each as its text.

    A string counts when it holds a word; a list of strings (one caption an image) is one
    line an item.

    Example:
        >>> media_words({"text": "Look!", "blip_caption": "a photo of a red canoe"}, {"text"})
        {'blip_caption': 'a photo of a red canoe'}
        >>> media_words({"captions": ["a lake", " "], "alt": ""}, ())
        {'captions': 'a lake'}
    """
    out: dict[str, str] = {}
    for key, value in obj.items():
        if key in used or not describes_media(key):
            continue
        items = value if isinstance(value, list) else [value]
        lines = [v.strip() for v in items if isinstance(v, str) and v.strip()]
        if lines and all(isinstance(v, str) for v in items):
            out[key] = "\n".join(lines)
    return out
