"""Where the official Python package's types (`simplex-chat` 7.0.2, generated from the Haskell type definitions) say
other than what the official core's encoders write, the encoders win: the apps decode what the encoders write. Each
entry overrides one definition of the package, in the package's own notation, and names the Haskell instance in
simplex-chat (or simplexmq) that proves it. `api_types.Schema` applies them before it checks anything.

- `field`: (class, key) → the key's corrected annotation (its `NotRequired` status is kept);
- `alias`: name → the alias's corrected definition.
"""

from __future__ import annotations

CORRECTIONS: list[dict[str, object]] = [
    {
        "alias": "FileProtocol",
        "annotation": 'Literal["smp", "xftp", "local"]',
        "package_says": 'Literal["SMP", "XFTP", "LOCAL"]',
        "encoder": "src/Simplex/Chat/Messages.hs: instance ToJSON FileProtocol where toJSON = J.String . textEncode; "
                   'textEncode FPSMP = "smp", FPXFTP = "xftp", FPLocal = "local"',
    },
    {
        "alias": "ConnectionMode",
        "annotation": 'Literal["inv", "con"]',
        "package_says": 'Literal["INV", "CON"]',
        "encoder": "simplexmq src/Simplex/Messaging/Agent/Protocol.hs: instance ToJSON ConnectionMode where "
                   "toJSON = J'.String . T.toLower . decodeLatin1 . strEncode (the parser upper-cases first)",
    },
    {
        "field": ("User", "agentUserId"),
        "annotation": "str",
        "package_says": "int  # int64",
        "encoder": "src/Simplex/Chat/Types.hs: instance ToJSON AgentUserId where toJSON = strToJSON "
                   "(strEncode (AgentUserId uId) = strEncode uId, the decimal text); "
                   'parseJSON = strParseJSON "AgentUserId" refuses a number',
    },
]
