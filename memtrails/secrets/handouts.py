"""Credentials people hand each other written as cards or pairs (rule set 17).

A Wi-Fi card: the network's name, then its key or password on the same line or the next
("SSID: HomeNet-5G / Key: X", "Netzwerk: FRITZ!Box 7590 / Schlüssel: X", "wifi CafeNet key
X"); a wallet's recovery phrase (12 to 24 lower-case words after "recovery phrase", "seed
phrase", "mnemonic", in a few languages); a user and its password joined by ":" after a word
for HTTP authentication or an account ("basic auth is deploy:X", "account: ann:X"). The
password wants a password's shape (a digit or a symbol, values.prose_secret), as after
"login ann / X"; a security type ("Key: WPA2") is too short and a pointer ("Key: on the
sticker") is no match.
"""

from __future__ import annotations

from typing import Final

from .prose import PW_VALUE
from .rule import Rule

__all__ = ["HANDOUT_RULES"]

# Words for a wireless network, in English, German, French, Spanish, Portuguese, Italian,
# Dutch and Russian.
_NETWORK = (
    r"\b(?i:ssid|network(?:[ \t]+name)?|netzwerk(?:name)?|wlan|wi-?fi|r(?:é|e)seau|red|rede"
    r"|rete|netwerk|сеть)"
)
# Words for its key, perhaps after the security type ("WPA2 key", "WPA-PSK").
_KEY = (
    r"(?:(?i:wpa[23]?|wep)(?:[ \t-]?(?i:psk|personal))?[ \t-]*)?"
    r"(?i:key|passphrase|password|passwd|pass|pw|psk|passwort|kennwort|schl(?:ü|ue)ssel"
    r"|cl(?:é|e)|clave|contrase(?:ñ|n)a|senha|mot[ \t]+de[ \t]+passe|пароль|ключ|wachtwoord"
    r"|sleutel|chiave)"
)
_CARD = (
    rf"{_NETWORK}(?:[ \t]*[:=][ \t]*|[ \t]+)"
    # The network's name: up to 32 characters (the SSID's limit), spaces allowed.
    r"(?P<user>[^\s/|,;:'\"`][^\r\n/|,;:'\"`]{0,31}?)[ \t]*(?:[/|,;][ \t]*|\r?\n[ \t]*|[ \t]+)"
    rf"{_KEY}(?:[ \t]*[:=][ \t]*|[ \t]+(?i:is|ist|est|es|é)[ \t]+|[ \t]+)[`'\"]?"
    rf"(?P<v>{PW_VALUE})"
)
# A BIP-39 style phrase: 12 to 24 words of 3 to 8 lower-case letters, ending its line.
_PHRASE_WORDS = (
    r"\b(?i:(?:recovery|seed|secret|backup|wallet)[ \t-]+(?:phrase|words|sentence)|mnemonic"
    r"|frase[ \t]+(?:de[ \t]+)?(?:recuperaci(?:ó|o)n|semilla|semente|recupera(?:ç|c)(?:ã|a)o)"
    r"|phrase[ \t]+de[ \t]+r(?:é|e)cup(?:é|e)ration|wiederherstellungsphrase)"
)
_PHRASE = (
    rf"{_PHRASE_WORDS}(?:['\x{{2019}}]s)?(?:[ \t]+(?i:is|was|es|est|ist|é))?[ \t]*[:=-]?[ \t]*"
    r"(?:\r?\n[ \t>]*)?(?P<v>[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,23})[ \t]*[.!]?[ \t]*(?:\r?\n|\z)"
)
# A user and its password joined by ":" after a word for HTTP authentication or an account.
_USER_COLON = (
    r"\b(?i:basic[ \t-]?auth(?:entication)?|http[ \t-]?auth|accounts?)"
    r"(?:[ \t]+(?i:is|are|was)|[ \t]*[:=])?[ \t]+[`'\"]?"
    r"(?P<user>[A-Za-z0-9._@+-]{1,64}):(?P<v>[^\s:'\"`]{6,64})[`'\"]?(?:[\s.,;!)]|\z)"
)

HANDOUT_RULES: Final[tuple[Rule, ...]] = (
    Rule("wifi_card", "password", _CARD, "headers", "pair"),
    Rule("recovery_phrase", "password", _PHRASE, "headers", "url"),
    Rule("user_colon", "password", _USER_COLON, "headers", "pair"),
)
