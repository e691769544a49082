"""Provider token rules: keys and tokens whose own shape (a prefix, a length) says what they are.

Each pattern is written from the format its provider documents (or, where none is published,
the shape every issued token has). The value group ``v`` is what gets replaced. Patterns start
with a literal prefix where the format has one, so a near-miss costs one DFA step per byte.
"""

from __future__ import annotations

from typing import Final

from .rule import Rule

__all__ = ["GLUED_WORD", "PROVIDER_RULES"]

# A boundary RE2 can express: one consumed character that cannot be inside the token (or the
# start of the text). Used in front of tokens whose alphabet includes '-' or '.', where \b
# would let every inner '-' start a new partial match.
_B64URL_START = r"(?:^|[^A-Za-z0-9_-])"
_END = r"(?:[^A-Za-z0-9_-]|\z)"
# A token glued to a word by "-" ("notes/backup-ico-...txt", rule set 12): for tokens that
# start with a literal prefix no token's own alphabet holds ("ico-", "tvly-", "jina_"), so a
# partial match starts only where that prefix does.
_GLUED = r"[A-Za-z0-9]-"
# A token with no such prefix glued to one word by "-" after a space or a "/" (a file's name:
# "notes/backup-eyJ...", "backup-MTIz...txt"): no base64url run holds a space or a "/", so
# a partial match starts only after one.
GLUED_WORD: Final = r"[\s/][A-Za-z0-9_.]{1,64}-"
_DISCORD = r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}"


def _tok(name: str, kind: str, pattern: str, check: str = "") -> Rule:
    return Rule(name, kind, pattern, "tokens", check)


#: Provider tokens, grouped by family, in priority order.
PROVIDER_RULES: Final[tuple[Rule, ...]] = (
    # --- Cloud ---------------------------------------------------------------------------
    _tok(
        "aws_access_key",
        "aws-access-key",
        r"\b(?P<v>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b"
        # Its secret key right after it: "AKIA...:SECRET", the console's credentials CSV, a
        # table's next column (not after a space: a word may follow one).
        r"(?:[ \t]*[:,;|\t][ \t]*(?P<pair>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z))?",
    ),
    # Azure: storage account keys (88 base64 characters ending "=="), Service Bus / Event Hubs
    # shared access keys (44 ending "="), both as connection-string fields; the signature of a
    # SAS URL; Entra ID (Azure AD) client secrets ("xxx8Q~" + 31..34).
    _tok(
        "azure_connection_key",
        "azure-key",
        r"(?i:AccountKey|SharedAccessKey|SharedSecretValue)=(?P<v>[A-Za-z0-9+/]{40,86}={0,2})",
    ),
    _tok("azure_sas", "azure-key", r"[?&]sig=(?P<v>[A-Za-z0-9%+/]{30,}(?:=|%3[Dd]){0,2})"),
    # The signature of a presigned URL (S3, Google Cloud Storage, CloudFront): whoever has the
    # URL has the object until it expires. The same signature in an AWS Signature Version 4
    # Authorization header ("AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
    # Signature=<64 hex>"), as a log prints it (botocore's debug log: "Signature:" and the
    # signature on the next line).
    _tok(
        "url_signature",
        "url-password",
        r"[?&](?i:x-amz-signature|x-goog-signature|signature)=(?P<v>[A-Za-z0-9%+/_~-]{32,}"
        r"(?:=|%3[Dd]){0,2})"
        r"|(?:^|[^A-Za-z0-9_-])Signature(?:=|:[ \t]*(?:\r?\n)?[ \t]*)(?P<v2>[0-9a-f]{64})"
        r"(?:[^A-Za-z0-9_-]|\z)",
    ),
    _tok(
        "azure_client_secret",
        "azure-key",
        r"(?:^|[^A-Za-z0-9_~.])(?P<v>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})"
        # A file's extension may follow it ("backup-xxx8Q~....txt"; rule set 12).
        r"(?:\.[a-z]{2,4})?(?:[^A-Za-z0-9_~.-]|\z)",
    ),
    # Google Cloud: API keys, OAuth client secrets, access and refresh tokens; the key id of a
    # service-account file (its "private_key" is a PEM block, see the private-key rule).
    _tok("google_api_key", "google-api-key", rf"\b(?P<v>AIza[0-9A-Za-z_-]{{35}}){_END}"),
    # A Firebase Cloud Messaging server key: an id, a colon, 140 characters.
    _tok(
        "firebase_server_key",
        "google-api-key",
        rf"\b(?P<v>AAAA[A-Za-z0-9_-]{{7}}:[A-Za-z0-9_-]{{140}}){_END}",
    ),
    _tok(
        "google_oauth",
        "google-oauth",
        r"\b(?P<v>GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[0-9A-Za-z_-]{30,})"
        rf"|{_B64URL_START}(?P<v2>1//0[0-9A-Za-z_-]{{40,}})",
    ),
    _tok(
        "gcp_private_key_id",
        "gcp-key",
        r"\\?\"private_key_id\\?\"[ \t]*:[ \t]*\\?\"(?P<v>[0-9a-f]{40})\\?\"",
    ),
    # --- Source hosts --------------------------------------------------------------------
    _tok(
        "github_token",
        "github-token",
        r"\b(?P<v>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b",
    ),
    _tok(
        "gitlab_token",
        "gitlab-token",
        r"\b(?P<v>(?:glpat|gldt|glptt|glrt|gloas|glcbt|glft|glimt|glagent|glsoat|glffct)"
        r"-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|GR1348941[A-Za-z0-9_-]{20,})",
    ),
    # Atlassian API tokens (Jira, Confluence), Bitbucket app passwords and access tokens.
    _tok(
        "atlassian_token",
        "atlassian-token",
        r"\b(?P<v>(?:ATATT|ATCTT)3[A-Za-z0-9_=-]{40,}|ATBB[A-Za-z0-9]{28,})",
    ),
    # --- Chat and mail -------------------------------------------------------------------
    _tok(
        "slack_webhook",
        "slack-webhook",
        r"(?P<v>https://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/"
        r"[A-Za-z0-9_/+-]{10,})",
        "alnum",  # a digit and a letter: ".../services/XXX/YYY/ZZZ" is a placeholder
    ),
    # Slack tokens: the prefix, the team's or app's number ("xoxb-1234-...", "xoxe.xoxp-1-"),
    # and a last part of 10+ characters: a file name's "-xoxo-indieweb-1.jpg" or
    # "xoxo-2019-05-indieweb.jpg" is no token.
    _tok(
        "slack_token",
        "slack-token",
        r"\b(?P<v>(?:xox[abposre]|xoxe\.xox[bp]|xapp)-[0-9]+-(?:[A-Za-z0-9]+-)*[A-Za-z0-9]{10,})",
    ),
    # Discord, Microsoft Teams (Office 365 connectors and Power Automate), Zapier, Google Chat.
    _tok(
        "webhook",
        "webhook",
        r"(?P<v>https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/"
        r"[A-Za-z0-9_-]{20,}"
        r"|https://[A-Za-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{40,}"
        r"|https://[A-Za-z0-9.-]+\.logic\.azure\.com[:0-9]*/workflows/[A-Za-z0-9/?=&%._-]*sig=[A-Za-z0-9%_-]{20,}"
        r"|https://hooks\.zapier\.com/hooks/catch/[0-9]+/[A-Za-z0-9]+"
        r"|https://chat\.googleapis\.com/v1/spaces/[A-Za-z0-9_-]+/messages\?[A-Za-z0-9=&%_.-]*token=[A-Za-z0-9%_-]{20,})",
    ),
    # Discord bot tokens: base64 of the bot's id, a timestamp, an HMAC.
    _tok(
        "discord_token",
        "discord-token",
        rf"{_B64URL_START}(?P<v>{_DISCORD}){_END}",
        "alnum",
    ),
    # The same glued to one word by "-" (GLUED_WORD; in a pass of its own, as jwt_glued).
    Rule(
        "discord_token_glued",
        "discord-token",
        rf"{GLUED_WORD}(?P<v>{_DISCORD}){_END}",
        "unknown",
        "alnum",
    ),
    # Telegram bot tokens: the bot's numeric id, a colon, 35 characters.
    _tok(
        "telegram_token",
        "telegram-token",
        r"(?:^|[^0-9A-Za-z_:]|bot)(?P<v>[0-9]{8,10}:[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|\z)",
        "alnum",
    ),
    # Twilio API keys ("SK") and account SIDs ("AC"): 32 hex digits.
    _tok("twilio_key", "twilio-key", r"\b(?P<v>(?:SK|AC)[0-9a-fA-F]{32})\b", "alnum"),
    _tok(
        "sendgrid_key",
        "sendgrid-key",
        rf"\b(?P<v>SG\.[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}}){_END}",
    ),
    # Mailgun: private API keys ("key-" + 32, or 32-8-8 hex), public validation keys.
    _tok(
        "mailgun_key",
        "mailgun-key",
        r"\b(?P<v>(?:key|pubkey)-[0-9a-z]{32}|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})\b",
        "alnum",
    ),
    # Mailchimp API keys (32 hex + data centre) and Mandrill (Mailchimp Transactional) keys.
    _tok(
        "mailchimp_key",
        "mailchimp-key",
        r"\b(?P<v>[0-9a-f]{32}-us[0-9]{1,2})\b|\b(?P<v2>md-[A-Za-z0-9_-]{22})\b",
    ),
    # --- Payments ------------------------------------------------------------------------
    _tok(
        "stripe_key",
        "stripe-key",
        r"\b(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})\b",
    ),
    _tok(
        "square_token",
        "square-token",
        r"\b(?P<v>sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_-]{60})"
        rf"{_END}",
    ),
    # Braintree (PayPal) access tokens.
    _tok(
        "paypal_token",
        "paypal-token",
        r"\b(?P<v>access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32})\b",
    ),
    # --- Package registries --------------------------------------------------------------
    _tok("npm_token", "npm-token", r"\b(?P<v>npm_[A-Za-z0-9]{36})\b"),
    # .npmrc: //registry/:_authToken=..., _auth= (base64 user:pass), _password=, the last two
    # also on a line of their own (the default registry's: "_auth = ..."). (A value
    # never starts with ":": ":_authToken=:_authToken=..." is no match.)
    _tok(
        "npmrc_auth",
        "npm-token",
        r"(?:^|[:\s])_(?:authToken|auth|password)[ \t]*=[ \t]*\"?(?P<v>[^\s\"$\[:][^\s\"]{7,})"
        # Yarn's .yarnrc.yml: npmAuthIdent, base64 of user:password (or user:password).
        r"|\bnpmAuthIdent[ \t]*:[ \t]*[\"']?(?P<v2>[^\s\"'$\[:][^\s\"']{7,})",
    ),
    _tok("pypi_token", "pypi-token", r"\b(?P<v>pypi-AgE[A-Za-z0-9_-]{50,})"),
    _tok("rubygems_key", "rubygems-key", r"\b(?P<v>rubygems_[0-9a-f]{48})\b"),
    _tok("nuget_key", "nuget-key", r"\b(?P<v>oy2[a-z0-9]{43})\b", "alnum"),
    # Docker: config.json's "auth" (base64 of user:password: the check decodes it, so
    # "auth": "required" is none), Docker Hub access tokens.
    _tok(
        "docker_auth",
        "docker-auth",
        r"\\?\"auth\\?\"[ \t]*:[ \t]*\\?\"(?P<v>[A-Za-z0-9+/]{8,}={0,2})\\?\"",
        "basic",
    ),
    _tok("docker_token", "docker-auth", r"\b(?P<v>dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,})"),
    # Other registries: crates.io, Clojars, JFrog Artifactory (API keys, reference tokens).
    _tok(
        "registry_token",
        "registry-token",
        r"\b(?P<v>cio[A-Za-z0-9]{32}|CLOJARS_[a-z0-9]{60}|AKCp[A-Za-z0-9]{60,}"
        r"|cmVmdGtu[A-Za-z0-9]{56})\b",
        "alnum",
    ),
    # --- AI providers --------------------------------------------------------------------
    _tok(
        "anthropic_key",
        "anthropic-key",
        r"\b(?P<v>sk-ant-(?:api|admin|sid|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,})",
    ),
    _tok(
        "openai_key",
        "openai-key",
        r"\b(?:(?P<v>sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,})"
        rf"|(?P<v2>sk-[A-Za-z0-9]{{48}}){_END})",
    ),
    _tok(
        "huggingface_token",
        "huggingface-token",
        r"\b(?P<v>(?:hf|api_org)_[A-Za-z]{34})\b",
        "mixed",
    ),
    # Groq, Replicate, Perplexity, xAI, OpenRouter, LangSmith, Fireworks, DeepSeek (sk- + 32
    # hex), Cohere's and Mistral's keys have no prefix: they are caught as assignments.
    _tok(
        "ai_key",
        "ai-key",
        r"\b(?P<v>gsk_[A-Za-z0-9]{52}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{48}|xai-[A-Za-z0-9]{80}"
        r"|sk-or-v1-[a-f0-9]{64}|lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}|fw_[A-Za-z0-9]{24}"
        r"|sk-[a-f0-9]{32})\b",
        "alnum",
    ),
    # --- Other services with prefixed tokens ---------------------------------------------
    # DigitalOcean, Heroku, Fly.io, Databricks, Supabase, Vault, Terraform Cloud, Doppler,
    # Pulumi, Alibaba Cloud, Linear, Postman, Grafana, New Relic, Sentry, Shopify, Notion,
    # Airtable, Contentful, 1Password, Dynatrace, Sourcegraph, PlanetScale, Prefect, ReadMe,
    # Brevo, Mapbox, Netlify, Razorpay, Flutterwave, Typeform.
    _tok(
        "service_token",
        "service-token",
        r"\b(?P<v>do[opr]_v1_[a-f0-9]{64}|HRKU-AA[A-Za-z0-9_-]{58}|fo1_[A-Za-z0-9_-]{43}"
        r"|dapi[a-f0-9]{32}(?:-[0-9])?|sbp_[a-f0-9]{40}|hv[sbr]\.[A-Za-z0-9_-]{24,}"
        r"|[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}|dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}"
        r"|pul-[a-f0-9]{40}|LTAI[A-Za-z0-9]{20}|lin_(?:api|oauth)_[A-Za-z0-9]{40}"
        r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|gl(?:c|sa)_[A-Za-z0-9+/_]{32,}={0,2}"
        r"|NRAK-[A-Z0-9]{27}|sntry[su]_[A-Za-z0-9+/=_]{40,}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"
        r"|(?:secret|ntn)_[A-Za-z0-9]{43,46}|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"
        r"|CFPAT-[A-Za-z0-9_-]{43}|ops_eyJ[A-Za-z0-9+/=_-]{100,}|dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"
        r"|sgp_[a-f0-9]{16}_[a-f0-9]{40}|sgp_[a-f0-9]{40}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}"
        r"|pnu_[A-Za-z0-9]{36}|rdme_[a-z0-9]{70}|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"
        r"|xsmtpsib-[a-f0-9]{64}-[A-Za-z0-9]{16}|sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"
        r"|nfp_[A-Za-z0-9]{36}|rzp_live_[A-Za-z0-9]{14}|FLWSECK(?:_TEST)?-[a-h0-9]{32}-X"
        r"|tfp_[A-Za-z0-9_.=-]{59})",
        "alnum",
    ),
    # More services whose tokens carry a prefix: 1Password secret keys, Adobe client secrets,
    # ClickHouse Cloud key secrets, Cloudflare origin CA keys, Dropbox short-lived tokens,
    # Duffel, EasyPost, Facebook page tokens, Fly.io macaroons, Frame.io, GoCardless, Harness,
    # Infracost, 42 (Intra), LaunchDarkly (sdk-/api-/mob- + UUID), MaxMind license keys, New
    # Relic insert, query, browser and license keys, Octopus Deploy, OpenShift, Scalingo,
    # SettleMint, Shippo, SonarQube, Yandex Cloud, Grafana API keys, Twitter app bearer tokens (a
    # run of A's, then URL-encoded base64: the '%' tells them from runs of zero bytes in base64),
    # Render, CircleCI, Buildkite, ClickUp and Figma personal tokens, Tencent Cloud SecretIds,
    # Plaid access tokens.
    _tok(
        "service_token_more",
        "service-token",
        r"\b(?P<v>A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
        r"-[A-Z0-9]{5}|p8e-[A-Za-z0-9]{32}|4b1d[A-Za-z0-9]{38}|v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"
        r"|sl\.[A-Za-z0-9_.-]{130,}|duffel_(?:test|live)_[A-Za-z0-9_=-]{43}|EZ[AT]K[A-Za-z0-9]{54}"
        r"|EAA[A-Z][A-Za-z0-9]{100,}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}|fio-u-[A-Za-z0-9_=-]{64}"
        r"|live_[A-Za-z0-9_=-]{40}|[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"
        r"|s-s4t2(?:ud|af)-[a-f0-9]{64}"
        r"|(?:sdk|api|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        r"|[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk|NRI[IQ]-[A-Za-z0-9_-]{32}|NRJS-[a-f0-9]{19}"
        r"|[a-f0-9]{36}NRAL|API-[A-Z0-9]{26}|sha256~[A-Za-z0-9_-]{43}|tk-us-[A-Za-z0-9_-]{48}"
        r"|sm_(?:pat|aat|sat)_[A-Za-z0-9]{16}|shippo_(?:live|test)_[a-fA-F0-9]{40}"
        r"|sq[pua]_[a-f0-9]{40}|AQVN[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}"
        r"|eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|A{18}[A-Za-z0-9]{4,44}%[A-Za-z0-9%]{40,96}"
        r"|rnd_[A-Za-z0-9]{32}|CCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}|bkua_[a-f0-9]{40}"
        r"|pk_[0-9]{6,12}_[A-Za-z0-9]{32}|figd_[A-Za-z0-9_-]{38,43}|AKID[A-Za-z0-9]{32}"
        r"|access-(?:production|development|sandbox)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
        r"-[0-9a-f]{4}-[0-9a-f]{12})"
        rf"{_END}",
        "alnum",
    ),
    # Tokens whose prefix is short enough to start words and names (rule set 13): Vault's
    # legacy service, batch and recovery tokens ("s." + 24 base62 or a few more, perhaps "." + a
    # namespace's 5; "b."/"r." + 24 or more), a Yandex Cloud static key's secret ("YC" + 38)
    # and Yandex OAuth tokens ("y0_" + 55 or more). Random ones only: a digit and both cases,
    # no name made of words ("s.getDefaultSerializer").
    _tok(
        "short_prefixed_token",
        "service-token",
        rf"(?:^|[^A-Za-z0-9_.-]|{_GLUED})(?P<v>[sbr]\.[A-Za-z0-9]{{24,36}}(?:\.[A-Za-z0-9]{{5}})?"
        r"|[br]\.[A-Za-z0-9_-]{25,200})(?:[^A-Za-z0-9_.(-]|\.(?:[a-z]{2,4})?(?:[^A-Za-z0-9_(]|\z)|\z)"
        rf"|(?:^|[^A-Za-z0-9_.-]|{_GLUED})(?P<v2>YC[A-Za-z0-9_-]{{38}}|y[0-3]_[A-Za-z0-9_-]{{55,199}}){_END}",
        "short_prefixed",
    ),
    # Infracost API keys: "ico-" + 32 of mixed case; not a hashed asset name's ".ico-7a38...".
    _tok(
        "infracost_key",
        "service-token",
        rf"(?:^|[^A-Za-z0-9_.-]|{_GLUED})(?P<v>ico-[A-Za-z0-9]{{32}})(?:[^A-Za-z0-9_-]|\z)",
        "mixed",
    ),
    # Tailscale auth, API, OAuth client and webhook keys ("tskey-auth-" + key id + "-" +
    # secret), Vercel tokens (vcp_ personal, vci_ integration, vca_/vcr_ app access and
    # refresh, vck_ AI Gateway keys), Dependency-Track API keys (odt_), Tavily (tvly-, with
    # tvly-dev-/tvly-prod- for project keys), Jina AI (jina_); rule set 16: NVIDIA API keys
    # (nvapi- + 64), Cerebras (csk- + 48), Pinecone (pcsk_ + a key id + the key), Resend (re_ +
    # an id of 8 + 24).
    _tok(
        "service_token_prefixed",
        "service-token",
        rf"(?:^|[^A-Za-z0-9_-]|{_GLUED})(?P<v>tskey-(?:[a-z]+-)?[A-Za-z0-9]{{6,}}-[A-Za-z0-9]{{16,}}"
        r"|vc[pciark]_[A-Za-z0-9]{24,}|odt_[A-Za-z0-9_]{32,}|tvly-(?:dev-|prod-)?[A-Za-z0-9]{32,}"
        r"|jina_[A-Za-z0-9_]{40,}|nvapi-[A-Za-z0-9_-]{64}|csk-[A-Za-z0-9]{40,64}"
        r"|pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,80}|re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})"
        rf"{_END}",
        "alnum",
    ),
    # Authress service client access keys (sc_/ext_/scauth_/authress_ + an id, a key id,
    # "acc_" + an account id, and the key) and Defined Networking API keys ("dnkey-" + 26 +
    # "-" + 52), rule set 12.
    _tok(
        "service_token_dotted",
        "service-token",
        r"\b(?P<v>(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-]"
        r"[A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}|dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52})"
        rf"{_END}",
        "alnum",
    ),
    # A Sentry DSN's key (rule set 10): 32 hex digits as the user of a URL whose path ends in
    # the project's number (https://KEY@o123.ingest.sentry.io/456), with the secret of the
    # older form as its password (https://KEY:SECRET@sentry.example.com/1): both go.
    _tok(
        "sentry_dsn",
        "sentry-dsn",
        r"\b(?i:https?):\\?/\\?/(?P<v>[0-9a-f]{32}(?::[0-9a-f]{32})?)@[A-Za-z0-9.-]{1,100}(?::[0-9]{1,5})?"
        r"\\?/(?:[A-Za-z0-9_.-]{1,40}\\?/){0,3}[0-9]{1,12}(?:[^A-Za-z0-9_./\\-]|\z)",
    ),
    # The session cookie of a GitLab instance.
    _tok("gitlab_session", "gitlab-token", r"_gitlab_session=(?P<v>[0-9a-z]{32})\b", "alnum"),
)
