"""PINs and door codes handed out in chat or mail (rule set 16).

"PIN: 482193", "the PIN for the door is 696087", "le code PIN est 3769094", "die PIN lautet
125818", "код от домофона 633437", "gate code is 48213": a word for a PIN or a code that
opens something, a link (or a space after "PIN" itself), then 6 to 12 digits that end the
number. A password's word wants a symbol too (``prose.py``); a PIN is digits only, so only
these words name one. Four or five digits stay, as every value under 6 characters does (a
card's "Your PIN is 4711." is left by design); a GPIO "pin 13" has fewer digits, "pin the
version to 1.2.3" no digits run alone.
"""

from __future__ import annotations

from typing import Final

from .rule import Rule

__all__ = ["PIN_RULES"]

# Words for a PIN (a card's, a phone's, a SIM's PUK) and for a code that opens a door, a
# gate, an alarm, a safe, in English, French, German, Spanish, Italian, Portuguese, Dutch,
# Polish and Russian. "PIN" in capitals alone; "pin" in lower case only as part
# of "pin code"/"PIN-Code", where it names no GPIO pin.
_PIN_WORDS = (
    r"(?:\b(?:PIN|PUK)(?:[ \t-](?i:code|nummer|kod|number))?\b"
    r"|\b(?i:pin[ -]?code|pincode|code[ \t]+pin|c(?:ó|o)digo[ \t]+pin|codice[ \t]+pin"
    r"|pin-kod|pincode|digicode|t(?:ü|ue)rcode|(?:door|gate|alarm|safe|locker|lockbox|garage"
    r"|keypad|entry|building)[ \t]+code|code[ \t]+(?:de[ \t]+la[ \t]+porte|d'entr(?:é|e)e)"
    r"|c(?:ó|o)digo[ \t]+(?:de[ \t]+la[ \t]+puerta|do[ \t]+port(?:ã|a)o)"
    # One-time codes a sign-in sends or shows (rule set 16): "OTP: 482913", "your
    # verification code is 482913", "2FA code 482913".
    r"|one[ -]time[ \t]+(?:pass)?code|(?:verification|2fa|mfa|security|login|sign-in|sms"
    r"|authentication|auth|confirmation|access)[ \t]+code)\b"
    r"|\b(?:OTP|TOTP)\b"
    # Russian: "пин-код", "код от домофона" (the code of the intercom), "код двери".
    r"|(?i:пин-код|код[ \t]+(?:от[ \t]+[\x{0400}-\x{04FF}]{2,24}|домофона|двери|подъезда))"
    # Rule set 17: a verification code in other languages ("код подтверждения", "código de
    # verificación", "Bestätigungscode", "验证码", "認証コード", "인증번호").
    r"|(?i:код[ \t]+(?:подтверждения|проверки|из[ \t]+смс)|c(?:ó|o)digo[ \t]+de[ \t]+"
    r"(?:verificaci(?:ó|o)n|verifica(?:ç|c)(?:ã|a)o|confirmaci(?:ó|o)n|seguridad|acceso)"
    r"|code[ \t]+de[ \t]+(?:v(?:é|e)rification|confirmation|s(?:é|e)curit(?:é|e))"
    r"|codice[ \t]+di[ \t]+(?:verifica|conferma|sicurezza)|best(?:ä|ae)tigungscode"
    r"|verifizierungscode|sicherheitscode|verificatiecode|kod[ \t]+weryfikacyjny)"
    r"|验证码|驗證碼|校验码|認証コード|確認コード|인증[ \t]?번호|인증[ \t]?코드)"
)
# Up to four words (the door's name), then a link; or a space alone.
_LINK = (
    r"(?:(?:[ \t]+[A-Za-z0-9\x{00C0}-\x{024F}\x{0400}-\x{04FF}'.-]{1,24}){0,4}?[ \t]*"
    r"(?:[ \t](?i:is|was|ist|lautet|est|es|é|è|jest|это|to)|:|\x{FF1A}|[ \t]=|->"
    r"|[ \t](?:-|\x{2013}))"
    r"|[ \t]*)[ \t]*"
)
# An account's backup or recovery codes (rule set 16), listed after those words and a colon:
# codes of digits (8-10, perhaps split by a "-" or a space: five, "-", five), or of letters
# and digits split by a "-" (the list must hold a digit); the codes of one list go as one.
_DIGITS = r"[0-9]{4,5}[- ]?[0-9]{4,5}"
_MIXED = r"[A-Za-z0-9]{4,5}-[A-Za-z0-9]{4,5}|[A-Za-z0-9]{8,10}"
_LIST = (
    r"\b(?i:backup|recovery|rescue|emergency)[ \t]+(?i:codes?|keys?)"
    r"(?:[ \t]*(?:\([^)\r\n]{0,40}\))?[ \t]*[:=-]|[ \t](?i:are|is))[ \t]*(?:\r?\n[ \t>-]*)?"
)


def _codes(code: str) -> str:
    return rf"(?:{code})(?:[ \t]*[,;]?[ \t]+(?:{code})){{0,15}}"


PIN_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "recovery_codes",
        "password",
        rf"{_LIST}(?:(?P<v>{_codes(_DIGITS)})|(?P<v2>{_codes(_MIXED)}))(?:[^A-Za-z0-9_-]|\z)",
        "headers",
        "recovery",
    ),
    Rule(
        "pin_code",
        "password",
        rf"{_PIN_WORDS}{_LINK}(?P<v>[0-9]{{6,12}})(?:[.,;!)]?(?:[ \t\r\n]|\z))",
        "headers",
    ),
)
