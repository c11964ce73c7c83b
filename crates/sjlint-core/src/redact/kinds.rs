//! The kinds of credential the redactor knows: for each, its name (the `KIND` of
//! `[REDACTED:KIND]`), the literal text a record must hold for its pattern to be tried, the
//! pattern, and what is checked of a match beyond its shape.
//!
//! This module owns the table and nothing else: the search is the parent's (`redact`), the
//! checks of a match are `redact::check`'s.
//!
//! A pattern's value is its first capture group that took part in the match, or the whole match
//! when it has none: only the value is replaced. Value alphabets never hold `"` or `\`, so that
//! a value inside a JSON string never takes part of an escape sequence; the one pattern that
//! spans escapes (a PEM block) takes whole ones. `{q}` in a pattern is an optional quote, maybe
//! escaped (`"`, `\"`, `'`), and `{sep}` a `:` or `=` with spaces around.

/// What is checked of a match beyond its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Check {
    /// The shape is enough.
    Shape,
    /// GitHub's and npm's token format: after the prefix (up to the first `_`), 30 characters and
    /// their CRC32 in base62 (`0-9A-Za-z`), padded to 6 characters with `0`.
    Crc32Base62,
    /// A Docker config's `"auth"`: base64 of `user:password`.
    UserPassBase64,
    /// Upper and lower case letters both (a random token), not a word run together.
    MixedCase,
}

/// One kind of credential.
#[derive(Debug)]
pub(super) struct Kind {
    pub(super) name: &'static str,
    /// Literal text (case-sensitive) one of which a record must hold for the pattern to be tried.
    pub(super) keys: &'static [&'static str],
    pub(super) pattern: &'static str,
    pub(super) check: Check,
    /// Whether the match must start at a word boundary (a token); a pattern that starts with
    /// its context (`aws_secret_access_key`, a variable's name) need not.
    pub(super) bounded: bool,
}

const fn token(name: &'static str, keys: &'static [&'static str], pattern: &'static str) -> Kind {
    Kind {
        name,
        keys,
        pattern,
        check: Check::Shape,
        bounded: true,
    }
}

const fn checked(
    name: &'static str,
    keys: &'static [&'static str],
    pattern: &'static str,
    check: Check,
) -> Kind {
    Kind {
        name,
        keys,
        pattern,
        check,
        bounded: true,
    }
}

const fn context(name: &'static str, keys: &'static [&'static str], pattern: &'static str) -> Kind {
    Kind {
        name,
        keys,
        pattern,
        check: Check::Shape,
        bounded: false,
    }
}

/// The optional quote around a name or a value, maybe escaped.
pub(super) const QUOTE: &str = r#"(?:\\*["'])?"#;
/// The separator of a name and its value.
pub(super) const SEP: &str = r"\s*[:=]\s*";

/// Every kind, the more specific first: where two matches overlap, the one that starts first
/// wins, and at the same start the one earlier in this table.
pub(super) static KINDS: &[Kind] = &[
    // Cloud providers.
    token(
        "aws-access-key-id",
        &["AKIA", "ASIA", "ABIA", "ACCA"],
        r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}",
    ),
    context(
        "aws-secret-access-key",
        &[
            "secret_access_key",
            "SECRET_ACCESS_KEY",
            "SecretAccessKey",
            "secretAccessKey",
        ],
        r"(?i:secret_?access_?key){q}{sep}{q}([A-Za-z0-9/+]{40})",
    ),
    context(
        "aws-session-token",
        &[
            "session_token",
            "SESSION_TOKEN",
            "SessionToken",
            "sessionToken",
        ],
        r"(?i:session_?token){q}{sep}{q}([A-Za-z0-9/+=]{100,})",
    ),
    token(
        "private-key",
        &["PRIVATE KEY-----", "PRIVATE KEY BLOCK-----"],
        r"-----BEGIN[A-Z ]{0,30} PRIVATE KEY(?: BLOCK)?-----(?:\\+[nr]|\s|[A-Za-z0-9+/=:,.-])+?-----END[A-Z ]{0,30} PRIVATE KEY(?: BLOCK)?-----",
    ),
    token(
        "gcp-oauth-client-secret",
        &["GOCSPX-"],
        r"GOCSPX-[A-Za-z0-9_-]{28}",
    ),
    token(
        "google-oauth-access-token",
        &["ya29."],
        r"ya29\.[A-Za-z0-9_-]{30,}",
    ),
    token(
        "google-oauth-refresh-token",
        &["1//0"],
        r"1//0[A-Za-z0-9_-]{40,}",
    ),
    context(
        "azure-storage-key",
        &["AccountKey="],
        r"AccountKey=([A-Za-z0-9+/]{86}==)",
    ),
    context(
        "azure-sas-token",
        &["sig="],
        r"[?&;]sig=([A-Za-z0-9%+/]{30,}(?:%3[Dd]|=){0,2})",
    ),
    token(
        "azure-client-secret",
        &["Q~"],
        r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
    ),
    // Forges.
    checked(
        "github-pat",
        &["ghp_"],
        r"ghp_[A-Za-z0-9]{36}",
        Check::Crc32Base62,
    ),
    token(
        "github-fine-grained-pat",
        &["github_pat_"],
        r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}",
    ),
    checked(
        "github-oauth-token",
        &["gho_"],
        r"gho_[A-Za-z0-9]{36}",
        Check::Crc32Base62,
    ),
    checked(
        "github-user-to-server-token",
        &["ghu_"],
        r"ghu_[A-Za-z0-9]{36}",
        Check::Crc32Base62,
    ),
    checked(
        "github-server-to-server-token",
        &["ghs_"],
        r"ghs_[A-Za-z0-9]{36}",
        Check::Crc32Base62,
    ),
    checked(
        "github-refresh-token",
        &["ghr_"],
        r"ghr_[A-Za-z0-9]{36}(?:[A-Za-z0-9]{40})?",
        Check::Crc32Base62,
    ),
    token("gitlab-pat", &["glpat-"], r"glpat-[A-Za-z0-9_.-]{20,}"),
    token(
        "gitlab-runner-token",
        &["glrt-", "GR1348941"],
        r"(?:glrt-|GR1348941)[A-Za-z0-9_.-]{20,}",
    ),
    token(
        "gitlab-pipeline-trigger-token",
        &["glptt-"],
        r"glptt-[A-Za-z0-9_-]{20,}",
    ),
    token(
        "gitlab-deploy-token",
        &["gldt-"],
        r"gldt-[A-Za-z0-9_-]{20,}",
    ),
    token("gitlab-oauth-secret", &["gloas-"], r"gloas-[a-f0-9]{64}"),
    token(
        "bitbucket-app-password",
        &["ATBB"],
        r"ATBB[A-Za-z0-9_=.-]{28,}",
    ),
    // Chat and mail.
    token(
        "slack-token",
        &[
            "xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe.",
        ],
        r"(?:xoxe\.)?xox[bpaosr]-[0-9]+-[A-Za-z0-9-]{10,}",
    ),
    context(
        "slack-webhook",
        &["hooks.slack.com/"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]{16,})",
    ),
    token(
        "slack-app-token",
        &["xapp-"],
        r"xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-f0-9]{32,}",
    ),
    token(
        "discord-bot-token",
        &["discord", "Discord", "DISCORD"],
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
    ),
    context(
        "discord-webhook",
        &["/api/webhooks/"],
        r"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/([A-Za-z0-9_-]{60,70})",
    ),
    token(
        "telegram-bot-token",
        &[":AA"],
        r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
    ),
    token(
        "twilio-account-sid",
        &["twilio", "Twilio", "TWILIO"],
        r"AC[0-9a-f]{32}",
    ),
    token(
        "twilio-api-key",
        &["twilio", "Twilio", "TWILIO"],
        r"SK[0-9a-f]{32}",
    ),
    context(
        "twilio-auth-token",
        &["twilio", "Twilio", "TWILIO"],
        r"(?:(?i:auth_?token){q}{sep}{q}|AC[0-9a-f]{32}:)([0-9a-f]{32})",
    ),
    token(
        "sendgrid-api-key",
        &["SG."],
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    ),
    token("mailgun-api-key", &["key-"], r"key-[0-9a-f]{32}"),
    token("mailchimp-api-key", &["-us"], r"[0-9a-f]{32}-us[0-9]{1,2}"),
    // Payment.
    token(
        "stripe-secret-key",
        &["sk_live_"],
        r"sk_live_[A-Za-z0-9]{24,247}",
    ),
    token(
        "stripe-restricted-key",
        &["rk_live_", "rk_test_"],
        r"rk_(?:live|test)_[A-Za-z0-9]{24,247}",
    ),
    token(
        "stripe-test-key",
        &["sk_test_"],
        r"sk_test_[A-Za-z0-9]{24,247}",
    ),
    token(
        "stripe-webhook-secret",
        &["whsec_"],
        r"whsec_[A-Za-z0-9+/=]{32,}",
    ),
    token(
        "square-access-token",
        &["EAAA", "sq0atp-"],
        r"EAAA[A-Za-z0-9_-]{60}|sq0atp-[A-Za-z0-9_-]{22}",
    ),
    token(
        "square-oauth-secret",
        &["sq0csp-"],
        r"sq0csp-[A-Za-z0-9_-]{43}",
    ),
    token(
        "shippo-token",
        &["shippo_"],
        r"shippo_(?:live|test)_[a-f0-9]{40}",
    ),
    // Model providers.
    token(
        "openai-api-key",
        &["sk-"],
        r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
    ),
    token(
        "anthropic-api-key",
        &["sk-ant-api"],
        r"sk-ant-api0[0-9]-[A-Za-z0-9_-]{80,120}",
    ),
    token(
        "anthropic-admin-key",
        &["sk-ant-admin"],
        r"sk-ant-admin0[0-9]-[A-Za-z0-9_-]{80,120}",
    ),
    token(
        "openrouter-api-key",
        &["sk-or-v1-"],
        r"sk-or-v1-[a-f0-9]{64}",
    ),
    token("google-api-key", &["AIza"], r"AIza[A-Za-z0-9_-]{35}"),
    token("groq-api-key", &["gsk_"], r"gsk_[A-Za-z0-9]{52}"),
    token("xai-api-key", &["xai-"], r"xai-[A-Za-z0-9]{80}"),
    checked(
        "huggingface-token",
        &["hf_"],
        r"hf_[A-Za-z]{34}",
        Check::MixedCase,
    ),
    token("replicate-token", &["r8_"], r"r8_[A-Za-z0-9]{37}"),
    token("perplexity-api-key", &["pplx-"], r"pplx-[A-Za-z0-9]{48}"),
    // Package registries and containers.
    checked(
        "npm-token",
        &["npm_"],
        r"npm_[A-Za-z0-9]{36}",
        Check::Crc32Base62,
    ),
    token(
        "pypi-token",
        &["pypi-AgE"],
        r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}",
    ),
    token("rubygems-api-key", &["rubygems_"], r"rubygems_[a-f0-9]{48}"),
    token("nuget-api-key", &["oy2"], r"oy2[a-z0-9]{43}"),
    Kind {
        name: "docker-config-auth",
        keys: &["\"auth"],
        pattern: r#"\\*"auth\\*"\s*:\s*\\*"([A-Za-z0-9+/]{8,}={0,2})\\*""#,
        check: Check::UserPassBase64,
        bounded: false,
    },
    token(
        "docker-hub-token",
        &["dckr_pat_", "dckr_oat_"],
        r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
    ),
    // Infrastructure and operations.
    token("vault-service-token", &["hvs."], r"hvs\.[A-Za-z0-9_-]{24,}"),
    token("vault-batch-token", &["hvb."], r"hvb\.[A-Za-z0-9_-]{24,}"),
    token(
        "terraform-cloud-token",
        &[".atlasv1."],
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,90}",
    ),
    token("pulumi-access-token", &["pul-"], r"pul-[a-f0-9]{40}"),
    token(
        "doppler-token",
        &[
            "dp.pt.",
            "dp.st.",
            "dp.sa.",
            "dp.ct.",
            "dp.scim.",
            "dp.audit.",
        ],
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
    ),
    token(
        "digitalocean-token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"do[por]_v1_[a-f0-9]{64}",
    ),
    token("heroku-api-key", &["HRKU-"], r"HRKU-[A-Za-z0-9_-]{60}"),
    token(
        "flyio-token",
        &["fo1_", "FlyV1 "],
        r"fo1_[A-Za-z0-9_-]{43}|FlyV1 fm[12]_[A-Za-z0-9+/=_,-]{40,}",
    ),
    context(
        "cloudflare-api-token",
        &["CLOUDFLARE_API", "CF_API_", "cloudflare_api", "cf_api_"],
        r"(?i:(?:cloudflare|cf)_?api_?(?:token|key)){q}{sep}{q}([A-Za-z0-9_-]{37,40})",
    ),
    context(
        "netlify-token",
        &["nfp_", "NETLIFY", "netlify"],
        r"nfp_[A-Za-z0-9]{36}|(?i:netlify_?(?:auth_?)?token){q}{sep}{q}([A-Za-z0-9_-]{40,46})",
    ),
    context(
        "vercel-token",
        &["VERCEL", "vercel", "Vercel"],
        r"(?:(?i:vercel)[A-Za-z_]*(?i:token){q}{sep}{q}|vercel [^\s\x22\\]*(?: [^\s\x22\\]+)*? --token[= ])([A-Za-z0-9]{24})",
    ),
    token(
        "supabase-token",
        &["sbp_", "sb_secret_"],
        r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,}",
    ),
    token(
        "planetscale-token",
        &["pscale_"],
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}",
    ),
    token(
        "tailscale-key",
        &["tskey-"],
        r"tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}",
    ),
    token(
        "grafana-service-account-token",
        &["glsa_"],
        r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
    ),
    token(
        "grafana-cloud-token",
        &["glc_"],
        r"glc_[A-Za-z0-9+/]{32,}={0,2}",
    ),
    token("new-relic-user-key", &["NRAK-"], r"NRAK-[A-Z0-9]{27}"),
    context(
        "datadog-api-key",
        &[
            "DD_API_KEY",
            "DD_APP_KEY",
            "DATADOG_API_KEY",
            "DATADOG_APP_KEY",
            "dd-api-key",
            "DD-API-KEY",
            "dd-application-key",
            "DD-APPLICATION-KEY",
        ],
        r"(?i:dd|datadog)[_-](?i:api|app|application)[_-](?i:key){q}{sep}{q}([a-f0-9]{32}(?:[a-f0-9]{8})?)",
    ),
    token(
        "sentry-token",
        &["sntrys_", "sntryu_"],
        r"sntrys_eyJ[A-Za-z0-9+/=_-]{50,}|sntryu_[a-f0-9]{64}",
    ),
    token("buildkite-token", &["bkua_"], r"bkua_[a-f0-9]{40}"),
    token("figma-token", &["figd_"], r"figd_[A-Za-z0-9_-]{40}"),
    // Work tools.
    token(
        "atlassian-api-token",
        &["ATATT", "ATCTT"],
        r"AT[AC]TT[A-Za-z0-9_=-]{100,}",
    ),
    token("linear-api-key", &["lin_api_"], r"lin_api_[A-Za-z0-9]{40}"),
    token(
        "notion-token",
        &["secret_", "ntn_"],
        r"secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46}",
    ),
    token(
        "asana-token",
        &["asana", "Asana", "ASANA"],
        r"[0-9]/[0-9]{10,20}(?:/[0-9]{10,20})?:[A-Za-z0-9]{32}",
    ),
    token(
        "postman-api-key",
        &["PMAK-"],
        r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    ),
    token(
        "databricks-token",
        &["dapi"],
        r"dapi[a-f0-9]{32}(?:-[0-9])?",
    ),
    context(
        "twitch-token",
        &["twitch", "Twitch", "TWITCH"],
        r"(?:oauth:|(?i:twitch)[A-Za-z_]*(?i:token|secret){q}{sep}{q})([a-z0-9]{30})",
    ),
    token(
        "mapbox-secret-token",
        &["sk.eyJ"],
        r"sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}",
    ),
    token(
        "resend-api-key",
        &["re_"],
        r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}",
    ),
    token(
        "age-secret-key",
        &["AGE-SECRET-KEY-1"],
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
    ),
    // By shape alone, whatever issued them.
    token(
        "jwt",
        &["eyJ"],
        r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}",
    ),
    context(
        "postgres-url",
        &["postgres"],
        r"postgres(?:ql)?(?:\+[a-z0-9]+)?://[^\s:/@\x22\\]*:([^\s/@\x22\\]+)@",
    ),
    context(
        "mysql-url",
        &["mysql", "mariadb"],
        r"(?:mysqlx?|mariadb)(?:\+[a-z0-9]+)?://[^\s:/@\x22\\]*:([^\s/@\x22\\]+)@",
    ),
    context(
        "mongodb-url",
        &["mongodb"],
        r"mongodb(?:\+srv)?://[^\s:/@\x22\\]*:([^\s/@\x22\\]+)@",
    ),
    context(
        "redis-url",
        &["redis"],
        r"rediss?://[^\s:/@\x22\\]*:([^\s/@\x22\\]+)@",
    ),
    context(
        "amqp-url",
        &["amqp"],
        r"amqps?://[^\s:/@\x22\\]*:([^\s/@\x22\\]+)@",
    ),
    context(
        "url-password",
        &["://"],
        r"[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@\x22\\]*:([^\s/@\x22\\]+)@",
    ),
    context(
        "command-line-password",
        &[
            "--password",
            "mysql",
            "mariadb",
            "sshpass",
            "redis-cli",
            "curl ",
        ],
        r"--password(?:=|\s+)(?:'|\\\x22)?([^\s\x22'\\-][^\s\x22'\\]*)|(?:mysql|mysqldump|mysqladmin|mariadb|sshpass)(?: [^\s\x22\\|;&]+)*? -p ?([^\s\x22'\\-][^\s\x22'\\]*)|redis-cli(?: [^\s\x22\\|;&]+)*? -a ([^\s\x22'\\-][^\s\x22'\\]*)|curl(?: [^\s\x22\\|;&]+)*? (?:-u|--user) (?:'|\\\x22)?[^\s:\x22'\\]+:([^\s\x22'\\@]+)",
    ),
    context(
        "env-secret",
        &[
            "PASSWORD=",
            "PASSWD=",
            "PASSPHRASE=",
            "SECRET=",
            "SECRET_KEY=",
            "SECRET_KEY_BASE=",
            "SECRET_ACCESS_KEY=",
            "TOKEN=",
            "API_KEY=",
            "APIKEY=",
            "ACCESS_KEY=",
            "PRIVATE_KEY=",
        ],
        r"(?:[A-Z][A-Z0-9_]*_)?(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|SECRET_KEY|SECRET_KEY_BASE|SECRET_ACCESS_KEY|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY)=(?:'|\\\x22)?([^\s\x22'\\]{3,})",
    ),
];
