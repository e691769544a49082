"""Secret families for ``secret_survivors.py``: value generators written from provider formats.

Each family's value is made from the format its provider documents (prefix, length,
alphabet), with random characters from one seeded generator. Not a package module: the
benchmarks folder is on ``sys.path`` when ``secret_survivors.py`` runs.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable

__all__ = ["ALNUM", "B64", "DIG", "FAMILIES", "HEX", "UP", "URLSAFE", "Gen"]

UP, LOW, DIG = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UP + LOW + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
B32 = UP + "234567"


class Gen:
    """Random strings from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        """Return ``n`` characters of ``alphabet`` with at least one digit and one letter
        when the alphabet has both (issued tokens are random, so nearly all do)."""
        while True:
            out = "".join(self.rng.choice(alphabet) for _ in range(n))
            has_digit = any(c.isdigit() for c in out) or not any(c.isdigit() for c in alphabet)
            has_alpha = any(c.isalpha() for c in out) or not any(c.isalpha() for c in alphabet)
            if has_digit and has_alpha:
                return out

    def uuid(self, upper: bool = False) -> str:
        h = self.s(HEX, 32)
        u = f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
        return u.upper() if upper else u

    def digits(self, n: int) -> str:
        return str(self.rng.randint(1, 9)) + "".join(self.rng.choice(DIG) for _ in range(n - 1))

    def pick(self, options: list[str] | tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def password_without(self, excluded: str) -> str:
        """A :meth:`password` with the ``excluded`` characters taken out, where that leaves 6
        characters and a digit or a symbol; else 10 random letters and digits."""
        p = "".join(c for c in self.password() if c not in excluded)
        return p if any(not c.isalpha() for c in p) and len(p) >= 6 else self.s(ALNUM, 10)

    def password(self) -> str:
        """A password of the kinds people choose or generate."""
        words = (
            "hunter",
            "dragon",
            "sunset",
            "Winter",
            "Summer",
            "monkey",
            "Bailey",
            "tigers",
            "falcon",
            "Orange",
            "Kitten",
            "shadow",
            "Pepper",
        )
        shape = self.rng.randrange(6)
        if shape == 0:
            return self.pick(words) + self.digits(self.rng.randint(1, 4)) + self.pick("!@#$%&*?")
        if shape == 1:
            return self.s(ALNUM + "!#%&*+-=?@^_", self.rng.randint(10, 20))
        if shape == 2:
            return self.pick(words) + self.pick("._-!") + self.digits(4)
        if shape == 3:
            return self.s(ALNUM, self.rng.randint(12, 24))
        if shape == 4:  # leetspeak: Tr0ub4dor&3
            return self.pick(
                ("Tr0ub4dor&3", "P@ssw0rd2024", "S3cur3!Pa55", "L3tM3In#77", "Adm1n$2023")
            )
        return self.pick(words).lower() + self.digits(1) + self.pick(words) + self.digits(2)


# --- Values per family: written from the formats the providers document -----------------------

Value = Callable[[Gen], str]
_pem_body = lambda g, n=8: "\n".join(g.s(B64, 64) for _ in range(n)) + "\n" + g.s(B64, 40) + "=="  # noqa: E731


def _pem(kind: str) -> Value:
    return lambda g: f"-----BEGIN {kind}-----\n{_pem_body(g)}\n-----END {kind}-----"


def _jwt(g: Gen) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
    body = (
        base64.urlsafe_b64encode(
            f'{{"sub":"{g.digits(8)}","name":"{g.pick(["ann", "bob"])}","iat":{g.digits(10)}}}'.encode()
        )
        .rstrip(b"=")
        .decode()
    )
    return f"{head}.{body}.{g.s(URLSAFE, 43)}"


def _basic(g: Gen) -> str:
    return base64.b64encode(f"{g.pick(['admin', 'deploy', 'ci'])}:{g.password()}".encode()).decode()


# (family, label used in prose, variable name, value factory, prefixed): a prefixed value says
# what it is by its own shape; the others only next to a name or word that says so.
FAMILIES: list[tuple[str, str, str, Value, bool]] = [
    # Cloud
    (
        "aws-access-key",
        "access key id",
        "AWS_ACCESS_KEY_ID",
        lambda g: g.pick(["AKIA", "ASIA"]) + g.s(B32, 16),
        True,
    ),
    ("aws-secret-key", "secret access key", "AWS_SECRET_ACCESS_KEY", lambda g: g.s(B64, 40), False),
    (
        "aws-session-token",
        "session token",
        "AWS_SESSION_TOKEN",
        lambda g: "IQoJb3JpZ2luX2Vj" + g.s(B64, 300),
        False,
    ),
    (
        "azure-storage-key",
        "storage account key",
        "AZURE_STORAGE_KEY",
        lambda g: g.s(B64, 86) + "==",
        False,
    ),
    (
        "azure-connection-string",
        "connection string",
        "AZURE_STORAGE_CONNECTION_STRING",
        lambda g: (
            f"DefaultEndpointsProtocol=https;AccountName=acct{g.digits(4)};AccountKey={g.s(B64, 86)}==;EndpointSuffix=core.windows.net"
        ),
        True,
    ),
    (
        "azure-sas",
        "SAS URL",
        "AZURE_SAS_URL",
        lambda g: (
            f"https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-01-01T00:00:00Z&sig={g.s(ALNUM, 44)}%3D"
        ),
        True,
    ),
    (
        "azure-ad-client-secret",
        "client secret",
        "AZURE_CLIENT_SECRET",
        lambda g: g.s(ALNUM, 3) + g.digits(1) + "Q~" + g.s(ALNUM + "_~.-", 34),
        True,
    ),
    ("gcp-api-key", "API key", "GOOGLE_API_KEY", lambda g: "AIza" + g.s(URLSAFE, 35), True),
    (
        "gcp-oauth-secret",
        "client secret",
        "GOOGLE_CLIENT_SECRET",
        lambda g: "GOCSPX-" + g.s(URLSAFE, 28),
        True,
    ),
    (
        "gcp-access-token",
        "access token",
        "GOOGLE_ACCESS_TOKEN",
        lambda g: "ya29." + g.s(URLSAFE, 120),
        True,
    ),
    ("gcp-service-account", "service account key", "private_key_id", lambda g: g.s(HEX, 40), False),
    (
        "alibaba-key",
        "AccessKey ID",
        "ALIBABA_ACCESS_KEY_ID",
        lambda g: "LTAI" + g.s(ALNUM, 20),
        True,
    ),
    ("ibm-cloud-iam", "IAM API key", "IBM_CLOUD_IAM_API_KEY", lambda g: g.s(URLSAFE, 44), False),
    ("ibm-cos-hmac", "HMAC secret", "COS_SECRET_ACCESS_KEY", lambda g: g.s(HEX, 48), False),
    ("softlayer", "SoftLayer API key", "SOFTLAYER_API_KEY", lambda g: g.s(HEX, 64), False),
    (
        "digitalocean",
        "DigitalOcean token",
        "DIGITALOCEAN_TOKEN",
        lambda g: "dop_v1_" + g.s(HEX, 64),
        True,
    ),
    ("heroku", "Heroku API key", "HEROKU_API_KEY", lambda g: g.uuid(), False),
    ("heroku-v2", "Heroku API key", "HEROKU_API_KEY", lambda g: "HRKU-AA" + g.s(URLSAFE, 58), True),
    (
        "cloudflare-api-token",
        "Cloudflare API token",
        "CLOUDFLARE_API_TOKEN",
        lambda g: g.s(URLSAFE, 40),
        False,
    ),
    (
        "cloudflare-global-key",
        "Cloudflare global API key",
        "CF_API_KEY",
        lambda g: g.s(HEX, 37),
        False,
    ),
    (
        "cloudflare-origin-ca",
        "origin CA key",
        "CF_ORIGIN_CA_KEY",
        lambda g: f"v1.0-{g.s(HEX, 24)}-{g.s(HEX, 146)}",
        True,
    ),
    ("fly", "Fly.io token", "FLY_API_TOKEN", lambda g: "FlyV1 fm2_" + g.s(B64, 150), True),
    ("vault", "Vault token", "VAULT_TOKEN", lambda g: "hvs." + g.s(URLSAFE, 95), True),
    (
        "terraform",
        "Terraform Cloud token",
        "TFE_TOKEN",
        lambda g: f"{g.s(LOW + DIG, 14)}.atlasv1.{g.s(URLSAFE, 67)}",
        True,
    ),
    ("databricks", "Databricks token", "DATABRICKS_TOKEN", lambda g: "dapi" + g.s(HEX, 32), True),
    ("openshift", "OpenShift token", "OC_TOKEN", lambda g: "sha256~" + g.s(URLSAFE, 43), True),
    (
        "scalingo",
        "Scalingo token",
        "SCALINGO_API_TOKEN",
        lambda g: "tk-us-" + g.s(URLSAFE, 48),
        True,
    ),
    ("doppler", "Doppler token", "DOPPLER_TOKEN", lambda g: "dp.pt." + g.s(ALNUM, 43), True),
    ("pulumi", "Pulumi token", "PULUMI_ACCESS_TOKEN", lambda g: "pul-" + g.s(HEX, 40), True),
    (
        "1password",
        "1Password secret key",
        "OP_SECRET_KEY",
        lambda g: (
            f"A3-{g.s(UP + DIG, 6)}-{g.s(UP + DIG, 11)}-{g.s(UP + DIG, 5)}-{g.s(UP + DIG, 5)}-{g.s(UP + DIG, 5)}"
        ),
        True,
    ),
    (
        "1password-service",
        "1Password service account token",
        "OP_SERVICE_ACCOUNT_TOKEN",
        lambda g: "ops_eyJ" + g.s(B64, 260),
        True,
    ),
    # Source hosts and CI
    (
        "github-pat",
        "GitHub token",
        "GITHUB_TOKEN",
        lambda g: g.pick(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + g.s(ALNUM, 36),
        True,
    ),
    (
        "github-fine-grained",
        "GitHub token",
        "GH_TOKEN",
        lambda g: f"github_pat_{g.s(ALNUM, 22)}_{g.s(ALNUM, 59)}",
        True,
    ),
    (
        "gitlab",
        "GitLab token",
        "GITLAB_TOKEN",
        lambda g: g.pick(["glpat-", "gldt-", "glrt-", "glft-", "glsoat-"]) + g.s(URLSAFE, 20),
        True,
    ),
    (
        "gitlab-routable",
        "GitLab token",
        "CI_JOB_TOKEN",
        lambda g: f"glpat-{g.s(URLSAFE, 36)}.01.{g.s(LOW + DIG, 9)}",
        True,
    ),
    (
        "gitlab-cicd",
        "job token",
        "CI_JOB_TOKEN",
        lambda g: f"glcbt-{g.s(ALNUM, 3)}_{g.s(URLSAFE, 20)}",
        True,
    ),
    (
        "gitlab-session",
        "session cookie",
        "Cookie",
        lambda g: "_gitlab_session=" + g.s(LOW + DIG, 32),
        True,
    ),
    (
        "bitbucket",
        "Bitbucket app password",
        "BITBUCKET_APP_PASSWORD",
        lambda g: "ATBB" + g.s(ALNUM, 32),
        True,
    ),
    (
        "atlassian",
        "Atlassian API token",
        "JIRA_API_TOKEN",
        lambda g: "ATATT3" + g.s(URLSAFE, 183) + "=" + g.s(HEX, 8),
        True,
    ),
    (
        "atlassian-legacy",
        "Jira API token",
        "JIRA_API_TOKEN",
        lambda g: g.s(LOW + DIG, 20) + g.s(HEX, 4),
        False,
    ),
    (
        "sourcegraph",
        "Sourcegraph token",
        "SRC_ACCESS_TOKEN",
        lambda g: f"sgp_{g.s(HEX, 16)}_{g.s(HEX, 40)}",
        True,
    ),
    ("travis", "Travis token", "TRAVIS_TOKEN", lambda g: g.s(ALNUM, 22), False),
    ("droneci", "Drone token", "DRONE_TOKEN", lambda g: g.s(ALNUM, 32), False),
    ("codecov", "Codecov token", "CODECOV_TOKEN", lambda g: g.uuid(), False),
    ("snyk", "Snyk token", "SNYK_TOKEN", lambda g: g.uuid(), False),
    ("sonar", "Sonar token", "SONAR_TOKEN", lambda g: "squ_" + g.s(HEX, 40), True),
    ("octopus", "Octopus API key", "OCTOPUS_API_KEY", lambda g: "API-" + g.s(UP + DIG, 26), True),
    (
        "harness",
        "Harness token",
        "HARNESS_TOKEN",
        lambda g: f"pat.{g.s(URLSAFE, 22)}.{g.s(ALNUM, 24)}.{g.s(ALNUM, 20)}",
        True,
    ),
    # Chat and mail
    (
        "slack-token",
        "Slack token",
        "SLACK_BOT_TOKEN",
        lambda g: f"xoxb-{g.digits(12)}-{g.digits(13)}-{g.s(ALNUM, 24)}",
        True,
    ),
    (
        "slack-user",
        "Slack token",
        "SLACK_USER_TOKEN",
        lambda g: f"xoxp-{g.digits(12)}-{g.digits(12)}-{g.digits(13)}-{g.s(HEX, 32)}",
        True,
    ),
    (
        "slack-app",
        "app-level token",
        "SLACK_APP_TOKEN",
        lambda g: f"xapp-1-A{g.s(UP + DIG, 10)}-{g.digits(13)}-{g.s(HEX, 64)}",
        True,
    ),
    (
        "slack-config",
        "config token",
        "SLACK_CONFIG_TOKEN",
        lambda g: f"xoxe.xoxp-1-{g.s(UP + DIG, 164)}",
        True,
    ),
    (
        "slack-webhook",
        "webhook",
        "SLACK_WEBHOOK_URL",
        lambda g: (
            f"https://hooks.slack.com/services/T{g.s(UP + DIG, 10)}/B{g.s(UP + DIG, 10)}/{g.s(ALNUM, 24)}"
        ),
        True,
    ),
    (
        "discord-token",
        "bot token",
        "DISCORD_TOKEN",
        lambda g: (
            base64.b64encode(g.digits(18).encode()).decode().rstrip("=")
            + "."
            + g.s(URLSAFE, 6)
            + "."
            + g.s(URLSAFE, 38)
        ),
        True,
    ),
    (
        "discord-webhook",
        "webhook",
        "DISCORD_WEBHOOK",
        lambda g: f"https://discord.com/api/webhooks/{g.digits(18)}/{g.s(URLSAFE, 68)}",
        True,
    ),
    (
        "discord-client-secret",
        "Discord client secret",
        "DISCORD_CLIENT_SECRET",
        lambda g: g.s(URLSAFE, 32),
        False,
    ),
    (
        "telegram",
        "bot token",
        "TELEGRAM_BOT_TOKEN",
        lambda g: f"{g.digits(10)}:AA{g.s(URLSAFE, 33)}",
        True,
    ),
    (
        "teams-webhook",
        "Teams webhook",
        "TEAMS_WEBHOOK",
        lambda g: (
            f"https://acme.webhook.office.com/webhookb2/{g.uuid()}@{g.uuid()}/IncomingWebhook/{g.s(HEX, 32)}/{g.uuid()}"
        ),
        True,
    ),
    ("mattermost", "Mattermost token", "MATTERMOST_TOKEN", lambda g: g.s(LOW + DIG, 26), False),
    (
        "twilio",
        "Twilio API key",
        "TWILIO_API_KEY",
        lambda g: g.pick(["SK", "AC"]) + g.s(HEX, 32),
        True,
    ),
    ("twilio-auth-token", "Twilio auth token", "TWILIO_AUTH_TOKEN", lambda g: g.s(HEX, 32), False),
    (
        "sendgrid",
        "SendGrid key",
        "SENDGRID_API_KEY",
        lambda g: f"SG.{g.s(URLSAFE, 22)}.{g.s(URLSAFE, 43)}",
        True,
    ),
    (
        "sendinblue",
        "Brevo key",
        "BREVO_API_KEY",
        lambda g: f"xkeysib-{g.s(HEX, 64)}-{g.s(ALNUM, 16)}",
        True,
    ),
    ("mailgun", "Mailgun key", "MAILGUN_API_KEY", lambda g: "key-" + g.s(HEX, 32), True),
    (
        "mailgun-signing",
        "Mailgun signing key",
        "MAILGUN_SIGNING_KEY",
        lambda g: f"{g.s(HEX, 32)}-{g.s(HEX, 8)}-{g.s(HEX, 8)}",
        True,
    ),
    (
        "mailchimp",
        "Mailchimp key",
        "MAILCHIMP_API_KEY",
        lambda g: f"{g.s(HEX, 32)}-us{g.rng.randint(1, 21)}",
        True,
    ),
    ("messagebird", "MessageBird key", "MESSAGEBIRD_API_KEY", lambda g: g.s(ALNUM, 25), False),
    ("sendbird", "Sendbird token", "SENDBIRD_API_TOKEN", lambda g: g.s(HEX, 40), False),
    (
        "intercom",
        "Intercom token",
        "INTERCOM_ACCESS_TOKEN",
        lambda g: "dG9rOj" + g.s(ALNUM, 54) + "=",
        False,
    ),
    ("zendesk", "Zendesk token", "ZENDESK_API_TOKEN", lambda g: g.s(ALNUM, 40), False),
    (
        "twitter-bearer",
        "Twitter bearer token",
        "TWITTER_BEARER_TOKEN",
        lambda g: "A" * 22 + g.s(ALNUM, 18) + "%2B" + g.s(ALNUM, 20) + "%3D" + g.s(ALNUM, 50),
        False,
    ),
    ("twitter-secret", "Twitter API secret", "TWITTER_API_SECRET", lambda g: g.s(ALNUM, 50), False),
    (
        "facebook-token",
        "Facebook page token",
        "FB_PAGE_TOKEN",
        lambda g: "EAAC" + g.s(ALNUM, 160),
        True,
    ),
    (
        "facebook-secret",
        "Facebook app secret",
        "FACEBOOK_APP_SECRET",
        lambda g: g.s(HEX, 32),
        False,
    ),
    # Payments
    (
        "stripe",
        "Stripe key",
        "STRIPE_SECRET_KEY",
        lambda g: g.pick(["sk_live_", "rk_live_", "sk_test_"]) + g.s(ALNUM, 99),
        True,
    ),
    (
        "stripe-webhook",
        "webhook secret",
        "STRIPE_WEBHOOK_SECRET",
        lambda g: "whsec_" + g.s(ALNUM, 32),
        True,
    ),
    (
        "square",
        "Square token",
        "SQUARE_ACCESS_TOKEN",
        lambda g: g.pick(["EAAA" + g.s(URLSAFE, 60), "sq0atp-" + g.s(URLSAFE, 22)]),
        True,
    ),
    (
        "braintree",
        "Braintree token",
        "BRAINTREE_ACCESS_TOKEN",
        lambda g: f"access_token$production${g.s(LOW + DIG, 16)}${g.s(HEX, 32)}",
        True,
    ),
    (
        "paypal-secret",
        "PayPal client secret",
        "PAYPAL_CLIENT_SECRET",
        lambda g: "E" + g.s(URLSAFE, 79),
        False,
    ),
    ("plaid", "Plaid secret", "PLAID_SECRET", lambda g: g.s(LOW + DIG, 30), False),
    (
        "gocardless",
        "GoCardless token",
        "GOCARDLESS_ACCESS_TOKEN",
        lambda g: "live_" + g.s(URLSAFE, 40),
        True,
    ),
    ("shippo", "Shippo token", "SHIPPO_API_TOKEN", lambda g: "shippo_live_" + g.s(HEX, 40), True),
    ("easypost", "EasyPost key", "EASYPOST_API_KEY", lambda g: "EZAK" + g.s(ALNUM, 54), True),
    ("duffel", "Duffel token", "DUFFEL_TOKEN", lambda g: "duffel_live_" + g.s(URLSAFE, 43), True),
    (
        "flutterwave",
        "Flutterwave key",
        "FLW_SECRET_KEY",
        lambda g: f"FLWSECK_TEST-{g.s('abcdefgh' + DIG, 32)}-X",
        True,
    ),
    ("razorpay", "Razorpay key", "RAZORPAY_KEY_ID", lambda g: "rzp_live_" + g.s(ALNUM, 14), True),
    ("coinbase", "Coinbase token", "COINBASE_ACCESS_TOKEN", lambda g: g.s(URLSAFE, 64), False),
    ("kraken", "Kraken key", "KRAKEN_API_SECRET", lambda g: g.s(B64, 86) + "==", False),
    # Package registries
    ("npm", "npm token", "NPM_TOKEN", lambda g: "npm_" + g.s(ALNUM, 36), True),
    (
        "pypi",
        "PyPI token",
        "PYPI_TOKEN",
        lambda g: "pypi-AgEIcHlwaS5vcmc" + g.s(URLSAFE, 140),
        True,
    ),
    ("rubygems", "RubyGems key", "GEM_HOST_API_KEY", lambda g: "rubygems_" + g.s(HEX, 48), True),
    ("nuget", "NuGet key", "NUGET_API_KEY", lambda g: "oy2" + g.s(LOW + DIG, 43), True),
    (
        "docker-hub",
        "Docker Hub token",
        "DOCKERHUB_TOKEN",
        lambda g: "dckr_pat_" + g.s(URLSAFE, 27),
        True,
    ),
    (
        "artifactory",
        "Artifactory key",
        "ARTIFACTORY_API_KEY",
        lambda g: "AKCp" + g.s(ALNUM, 69),
        True,
    ),
    (
        "artifactory-ref",
        "Artifactory token",
        "JFROG_ACCESS_TOKEN",
        lambda g: "cmVmdGtuOjAxOj" + g.s(ALNUM, 50),
        True,
    ),
    ("clojars", "Clojars token", "CLOJARS_TOKEN", lambda g: "CLOJARS_" + g.s(LOW + DIG, 60), True),
    ("crates", "crates.io token", "CARGO_REGISTRY_TOKEN", lambda g: "cio" + g.s(ALNUM, 32), True),
    # AI providers
    (
        "openai",
        "OpenAI key",
        "OPENAI_API_KEY",
        lambda g: f"sk-proj-{g.s(URLSAFE, 74)}T3BlbkFJ{g.s(URLSAFE, 74)}",
        True,
    ),
    (
        "openai-legacy",
        "OpenAI key",
        "OPENAI_API_KEY",
        lambda g: f"sk-{g.s(ALNUM, 20)}T3BlbkFJ{g.s(ALNUM, 20)}",
        True,
    ),
    (
        "anthropic",
        "Anthropic key",
        "ANTHROPIC_API_KEY",
        lambda g: f"sk-ant-api03-{g.s(URLSAFE, 93)}AA",
        True,
    ),
    ("huggingface", "HF token", "HF_TOKEN", lambda g: "hf_" + g.s(UP + LOW, 34), True),
    ("groq", "Groq key", "GROQ_API_KEY", lambda g: "gsk_" + g.s(ALNUM, 52), True),
    ("replicate", "Replicate token", "REPLICATE_API_TOKEN", lambda g: "r8_" + g.s(ALNUM, 37), True),
    ("perplexity", "Perplexity key", "PPLX_API_KEY", lambda g: "pplx-" + g.s(ALNUM, 48), True),
    ("cohere", "Cohere key", "COHERE_API_KEY", lambda g: g.s(ALNUM, 40), False),
    ("mistral", "Mistral key", "MISTRAL_API_KEY", lambda g: g.s(ALNUM, 32), False),
    ("deepseek", "DeepSeek key", "DEEPSEEK_API_KEY", lambda g: "sk-" + g.s(HEX, 32), True),
    ("privateai", "Private AI key", "PRIVATE_AI_API_KEY", lambda g: g.s(LOW + DIG, 32), False),
    # Observability and other SaaS
    ("datadog", "Datadog API key", "DD_API_KEY", lambda g: g.s(HEX, 32), False),
    ("datadog-app", "Datadog app key", "DATADOG_APP_KEY", lambda g: g.s(HEX, 40), False),
    (
        "newrelic",
        "New Relic key",
        "NEW_RELIC_API_KEY",
        lambda g: g.pick(
            ["NRAK-" + g.s(UP + DIG, 27), "NRII-" + g.s(URLSAFE, 32), "NRJS-" + g.s(HEX, 19)]
        ),
        True,
    ),
    (
        "newrelic-license",
        "New Relic license key",
        "NEW_RELIC_LICENSE_KEY",
        lambda g: g.s(HEX, 36) + "NRAL",
        True,
    ),
    ("sentry", "Sentry token", "SENTRY_AUTH_TOKEN", lambda g: "sntryu_" + g.s(HEX, 64), True),
    # (A Sentry DSN's key is public by Sentry's own docs: not a secret, not generated.)
    (
        "grafana",
        "Grafana token",
        "GRAFANA_TOKEN",
        lambda g: g.pick(
            [
                "glsa_" + g.s(ALNUM, 32) + "_" + g.s(HEX, 8),
                "glc_" + g.s(B64, 80),
                "eyJrIjoi" + g.s(ALNUM, 80),
            ]
        ),
        True,
    ),
    (
        "dynatrace",
        "Dynatrace token",
        "DT_API_TOKEN",
        lambda g: f"dt0c01.{g.s(UP + DIG, 24)}.{g.s(UP + DIG, 64)}",
        True,
    ),
    ("sumologic", "Sumo Logic key", "SUMO_ACCESS_KEY", lambda g: g.s(ALNUM, 64), False),
    ("launchdarkly", "LaunchDarkly key", "LAUNCHDARKLY_SDK_KEY", lambda g: "sdk-" + g.uuid(), True),
    ("algolia", "Algolia admin key", "ALGOLIA_ADMIN_KEY", lambda g: g.s(HEX, 32), False),
    (
        "contentful",
        "Contentful token",
        "CONTENTFUL_DELIVERY_TOKEN",
        lambda g: g.s(URLSAFE, 43),
        False,
    ),
    (
        "contentful-pat",
        "Contentful token",
        "CONTENTFUL_MANAGEMENT_TOKEN",
        lambda g: "CFPAT-" + g.s(URLSAFE, 43),
        True,
    ),
    (
        "airtable",
        "Airtable token",
        "AIRTABLE_API_KEY",
        lambda g: f"pat{g.s(ALNUM, 14)}.{g.s(HEX, 64)}",
        True,
    ),
    (
        "asana",
        "Asana token",
        "ASANA_ACCESS_TOKEN",
        lambda g: f"1/{g.digits(16)}:{g.s(HEX, 32)}",
        False,
    ),
    (
        "notion",
        "Notion token",
        "NOTION_TOKEN",
        lambda g: "ntn_" + g.digits(11) + g.s(ALNUM, 35),
        True,
    ),
    ("linear", "Linear key", "LINEAR_API_KEY", lambda g: "lin_api_" + g.s(ALNUM, 40), True),
    (
        "postman",
        "Postman key",
        "POSTMAN_API_KEY",
        lambda g: f"PMAK-{g.s(HEX, 24)}-{g.s(HEX, 34)}",
        True,
    ),
    (
        "shopify",
        "Shopify token",
        "SHOPIFY_ACCESS_TOKEN",
        lambda g: g.pick(["shpat_", "shpss_", "shpca_"]) + g.s(HEX, 32),
        True,
    ),
    (
        "hubspot",
        "HubSpot key",
        "HUBSPOT_API_KEY",
        lambda g: g.pick(["pat-na1-" + g.uuid(), g.uuid()]),
        False,
    ),
    ("dropbox", "Dropbox token", "DROPBOX_ACCESS_TOKEN", lambda g: "sl." + g.s(URLSAFE, 135), True),
    (
        "mapbox",
        "Mapbox token",
        "MAPBOX_ACCESS_TOKEN",
        lambda g: f"sk.eyJ1Ijoi{g.s(ALNUM, 30)}.{g.s(URLSAFE, 22)}",
        True,
    ),
    ("netlify", "Netlify token", "NETLIFY_AUTH_TOKEN", lambda g: "nfp_" + g.s(ALNUM, 36), True),
    (
        "typeform",
        "Typeform token",
        "TYPEFORM_TOKEN",
        lambda g: "tfp_" + g.s(ALNUM, 44) + "_" + g.s(ALNUM, 14),
        True,
    ),
    ("okta", "Okta token", "OKTA_API_TOKEN", lambda g: "00" + g.s(URLSAFE, 40), False),
    ("fastly", "Fastly token", "FASTLY_API_TOKEN", lambda g: g.s(URLSAFE, 32), False),
    ("twitch", "Twitch token", "TWITCH_CLIENT_SECRET", lambda g: g.s(LOW + DIG, 30), False),
    ("yandex", "Yandex key", "YANDEX_API_KEY", lambda g: "AQVN" + g.s(URLSAFE, 36), True),
    ("frameio", "Frame.io token", "FRAMEIO_TOKEN", lambda g: "fio-u-" + g.s(URLSAFE, 64), True),
    ("infracost", "Infracost key", "INFRACOST_API_KEY", lambda g: "ico-" + g.s(ALNUM, 32), True),
    (
        "maxmind",
        "MaxMind license key",
        "MAXMIND_LICENSE_KEY",
        lambda g: f"{g.s(ALNUM, 6)}_{g.s(ALNUM, 29)}_mmk",
        True,
    ),
    ("prefect", "Prefect key", "PREFECT_API_KEY", lambda g: "pnu_" + g.s(ALNUM, 36), True),
    ("readme", "ReadMe key", "README_API_KEY", lambda g: "rdme_" + g.s(LOW + DIG, 70), True),
    (
        "adobe",
        "Adobe client secret",
        "ADOBE_CLIENT_SECRET",
        lambda g: "p8e-" + g.s(ALNUM, 32),
        True,
    ),
    (
        "clickhouse",
        "ClickHouse key secret",
        "CLICKHOUSE_KEY_SECRET",
        lambda g: "4b1d" + g.s(ALNUM, 38),
        True,
    ),
    (
        "settlemint",
        "SettleMint token",
        "SETTLEMINT_TOKEN",
        lambda g: "sm_pat_" + g.s(ALNUM, 16),
        True,
    ),
    (
        "intra42",
        "42 client secret",
        "INTRA_CLIENT_SECRET",
        lambda g: "s-s4t2ud-" + g.s(HEX, 64),
        True,
    ),
    (
        "planetscale",
        "PlanetScale password",
        "DATABASE_PASSWORD",
        lambda g: "pscale_pw_" + g.s(URLSAFE, 43),
        True,
    ),
    ("cloudant", "Cloudant password", "CLOUDANT_PASSWORD", lambda g: g.s(HEX, 64), False),
    ("render", "Render key", "RENDER_API_KEY", lambda g: "rnd_" + g.s(ALNUM, 32), True),
    (
        "circleci",
        "CircleCI token",
        "CIRCLECI_TOKEN",
        lambda g: f"CCIPAT_{g.s(ALNUM, 22)}_{g.s(HEX, 40)}",
        True,
    ),
    ("buildkite", "Buildkite token", "BUILDKITE_API_TOKEN", lambda g: "bkua_" + g.s(HEX, 40), True),
    (
        "clickup",
        "ClickUp token",
        "CLICKUP_API_TOKEN",
        lambda g: f"pk_{g.digits(8)}_{g.s(UP + DIG, 32)}",
        True,
    ),
    ("figma", "Figma token", "FIGMA_TOKEN", lambda g: "figd_" + g.s(URLSAFE, 40), True),
    (
        "tencent",
        "Tencent SecretId",
        "TENCENTCLOUD_SECRET_ID",
        lambda g: "AKID" + g.s(ALNUM, 32),
        True,
    ),
    (
        "plaid-access",
        "Plaid access token",
        "PLAID_ACCESS_TOKEN",
        lambda g: "access-production-" + g.uuid(),
        True,
    ),
    (
        "firebase-fcm",
        "FCM server key",
        "FCM_SERVER_KEY",
        lambda g: f"AAAA{g.s(URLSAFE, 7)}:APA91b{g.s(URLSAFE, 134)}",
        True,
    ),
    (
        "azure-devops",
        "Azure DevOps PAT",
        "AZURE_DEVOPS_PAT",
        lambda g: g.s(LOW + "234567", 52),
        False,
    ),
    # Keys, tokens, credentials without a provider
    ("jwt", "token", "ID_TOKEN", _jwt, True),
    ("private-key-rsa", "private key", "private_key", _pem("RSA PRIVATE KEY"), True),
    ("private-key-openssh", "private key", "ssh_key", _pem("OPENSSH PRIVATE KEY"), True),
    ("private-key-ec", "private key", "tls_key", _pem("EC PRIVATE KEY"), True),
    ("private-key-pgp", "private key", "gpg_key", _pem("PGP PRIVATE KEY BLOCK"), True),
    ("private-key-pkcs8", "private key", "key.pem", _pem("PRIVATE KEY"), True),
    (
        "age",
        "age key",
        "AGE_KEY",
        lambda g: "AGE-SECRET-KEY-1" + g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
        True,
    ),
    ("basic-auth", "credentials", "Authorization", _basic, False),
    # Rule set 5: tokens whose prefixes the providers document (Tailscale, Vercel,
    # Dependency-Track, Tavily, Jina AI), a JWT wrapped in base64, tokens of a service no rule
    # names, password hashes (crypt(3), bcrypt, Argon2, Kerberos roasting, pwdump).
    (
        "tailscale",
        "Tailscale key",
        "TS_AUTHKEY",
        lambda g: (
            f"tskey-{g.pick(['auth', 'api', 'client'])}-k{g.s(ALNUM, 10)}CNTRL-{g.s(ALNUM, 33)}"
        ),
        True,
    ),
    (
        "vercel",
        "Vercel token",
        "VERCEL_TOKEN",
        lambda g: g.pick(["vcp_", "vci_"]) + g.s(ALNUM, 56),
        True,
    ),
    (
        "dependency-track",
        "Dependency-Track key",
        "DT_API_KEY",
        lambda g: "odt_" + g.s(ALNUM, 32),
        True,
    ),
    (
        "tavily",
        "Tavily key",
        "TAVILY_API_KEY",
        lambda g: g.pick(["tvly-", "tvly-dev-"]) + g.s(ALNUM, 32),
        True,
    ),
    ("jina", "Jina key", "JINA_API_KEY", lambda g: "jina_" + g.s(ALNUM, 60), True),
    (
        "jwt-base64",
        "token",
        "ID_TOKEN_B64",
        lambda g: base64.b64encode(_jwt(g).encode()).decode(),
        True,
    ),
    (
        "unknown-prefixed",
        "token",
        "SERVICE_TOKEN",
        lambda g: (
            g.pick(["acme_", "zl_live_", "qx_", "wrk_sk_"]) + g.s(ALNUM, g.rng.randint(24, 48))
        ),
        True,
    ),
    (
        "password-hash",
        "password hash",
        "PASSWORD_HASH",
        lambda g: g.pick(
            [
                f"$1${g.s(ALNUM, 8)}${g.s(ALNUM + './', 22)}",
                f"$6$rounds=5000${g.s(ALNUM, 16)}${g.s(ALNUM + './', 86)}",
                f"$2b$12${g.s(ALNUM + './', 53)}",
                f"$argon2id$v=19$m=65536,t=3,p=4${g.s(B64, 22)}${g.s(B64, 43)}",
                f"$krb5asrep$23$svc@CORP.LOCAL:{g.s(HEX, 32)}${g.s(HEX, 220)}",
            ]
        ),
        True,
    ),
    ("high-entropy-base64", "secret", "SECRET", lambda g: g.s(B64, 44) + "=", False),
    ("high-entropy-hex", "secret", "SECRET", lambda g: g.s(HEX, 64), False),
    ("generic-token", "token", "TOKEN", lambda g: g.s(ALNUM, 32), False),
    (
        "k8s-secret-data",
        "secret",
        "data",
        lambda g: base64.b64encode(g.password().encode()).decode(),
        False,
    ),
]
