//! Every kind with a well-formed sample (seeded, checksums computed), where a record holds it;
//! the look-alikes that must come through byte for byte.

use super::check::{base62_6, crc32};
use super::*;

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/// `n` characters of `alphabet`, the same for the same seed.
pub(crate) fn rnd(alphabet: &str, n: usize, seed: &mut u64) -> String {
    let a = alphabet.as_bytes();
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            a[(*seed % a.len() as u64) as usize] as char
        })
        .collect()
}

/// For every kind, a sample as a tool would print it: `{xN}` is N characters of alphabet `x`
/// (see [`alphabet`]), `{crc}` 30 characters and their CRC32 in base62, and `«…»` the secret
/// when it is not the whole text.
const SAMPLES: &[(&str, &str)] = &[
    ("aws-access-key-id", "AKIA{216}"),
    (
        "private-key",
        "-----BEGIN RSA PRIVATE KEY-----\n{b64}\n{b64}\n{b30}=\n-----END RSA PRIVATE KEY-----",
    ),
    ("gcp-oauth-client-secret", "GOCSPX-{u28}"),
    ("google-oauth-access-token", "ya29.a0{u80}"),
    ("google-oauth-refresh-token", "1//0g{u60}"),
    ("azure-client-secret", "{a3}8Q~{a34}"),
    ("github-pat", "ghp_{crc}"),
    ("github-fine-grained-pat", "github_pat_{a22}_{a59}"),
    ("github-oauth-token", "gho_{crc}"),
    ("github-user-to-server-token", "ghu_{crc}"),
    ("github-server-to-server-token", "ghs_{crc}"),
    ("github-refresh-token", "ghr_{crc}"),
    ("gitlab-pat", "glpat-{a20}"),
    ("gitlab-runner-token", "glrt-{a20}"),
    ("gitlab-pipeline-trigger-token", "glptt-{h40}"),
    ("gitlab-deploy-token", "gldt-{a20}"),
    ("gitlab-oauth-secret", "gloas-{h64}"),
    ("bitbucket-app-password", "ATBB{a32}"),
    ("slack-token", "xoxb-{d12}-{d13}-{a24}"),
    ("slack-app-token", "xapp-1-A{U10}-{d13}-{h64}"),
    ("telegram-bot-token", "{d10}:AA{u33}"),
    ("sendgrid-api-key", "SG.{u22}.{u43}"),
    ("mailgun-api-key", "key-{h32}"),
    ("mailchimp-api-key", "{h32}-us14"),
    ("stripe-secret-key", "sk_live_{a24}"),
    ("stripe-restricted-key", "rk_live_{a24}"),
    ("stripe-test-key", "sk_test_{a24}"),
    ("stripe-webhook-secret", "whsec_{a32}"),
    ("square-access-token", "EAAA{u60}"),
    ("square-oauth-secret", "sq0csp-{u43}"),
    ("shippo-token", "shippo_live_{h40}"),
    ("openai-api-key", "sk-proj-{a20}T3BlbkFJ{a20}"),
    ("anthropic-api-key", "sk-ant-api03-{u93}AA"),
    ("anthropic-admin-key", "sk-ant-admin01-{u93}AA"),
    ("openrouter-api-key", "sk-or-v1-{h64}"),
    ("google-api-key", "AIza{u35}"),
    ("groq-api-key", "gsk_{a52}"),
    ("xai-api-key", "xai-{a80}"),
    ("huggingface-token", "hf_Ab{L32}"),
    ("replicate-token", "r8_{a37}"),
    ("perplexity-api-key", "pplx-{a48}"),
    ("npm-token", "npm_{crc}"),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc{u70}"),
    ("rubygems-api-key", "rubygems_{h48}"),
    ("nuget-api-key", "oy2{l43}"),
    ("docker-hub-token", "dckr_pat_{u27}"),
    ("vault-service-token", "hvs.{u90}"),
    ("vault-batch-token", "hvb.{u90}"),
    ("terraform-cloud-token", "{a14}.atlasv1.{a67}"),
    ("pulumi-access-token", "pul-{h40}"),
    ("doppler-token", "dp.pt.{a43}"),
    ("digitalocean-token", "dop_v1_{h64}"),
    ("heroku-api-key", "HRKU-AA{u58}"),
    ("flyio-token", "fo1_{u43}"),
    ("supabase-token", "sbp_{h40}"),
    ("planetscale-token", "pscale_tkn_{a43}"),
    ("tailscale-key", "tskey-auth-k{a10}-{a30}"),
    ("grafana-service-account-token", "glsa_{a32}_{h8}"),
    ("grafana-cloud-token", "glc_{a60}"),
    ("new-relic-user-key", "NRAK-{U27}"),
    ("sentry-token", "sntryu_{h64}"),
    ("buildkite-token", "bkua_{h40}"),
    ("figma-token", "figd_{u40}"),
    ("atlassian-api-token", "ATATT3xFfGF0{u180}"),
    ("linear-api-key", "lin_api_{a40}"),
    ("notion-token", "ntn_{a46}"),
    ("postman-api-key", "PMAK-{h24}-{h34}"),
    ("databricks-token", "dapi{h32}"),
    ("mapbox-secret-token", "sk.eyJ1Ijoi{u60}.{u22}"),
    ("resend-api-key", "re_{a8}_{a24}"),
    ("age-secret-key", "AGE-SECRET-KEY-1{g58}"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ{u30}.{u43}"),
    (
        "aws-secret-access-key",
        "aws_secret_access_key = «{b40}»\nregion = us-east-1",
    ),
    ("aws-session-token", "AWS_SESSION_TOKEN=«{b160}»"),
    (
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=«{b86}==»;EndpointSuffix=core.windows.net",
    ),
    (
        "azure-sas-token",
        "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sp=r&sig=«{a43}»%3D",
    ),
    (
        "slack-webhook",
        "curl -X POST https://hooks.slack.com/services/«T{U8}/B{U10}/{a24}» -d '{}'",
    ),
    ("discord-bot-token", "Discord bot token: M{u25}.{u6}.{u38}"),
    (
        "discord-webhook",
        "https://discord.com/api/webhooks/{d18}/«{u68}»",
    ),
    ("twilio-account-sid", "TWILIO_ACCOUNT_SID=«AC{h32}»"),
    ("twilio-api-key", "Twilio API key: «SK{h32}»"),
    ("twilio-auth-token", "export TWILIO_AUTH_TOKEN=«{h32}»"),
    (
        "docker-config-auth",
        "{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"«ZGVwbG95OnMzY3JldC1kb2NrZXItcHc=»\"}}}",
    ),
    ("cloudflare-api-token", "CLOUDFLARE_API_TOKEN=«{u40}»"),
    ("netlify-token", "netlify deploy --auth «nfp_{a36}»"),
    ("vercel-token", "VERCEL_TOKEN=«{a24}»"),
    ("datadog-api-key", "DD_API_KEY=«{h32}»"),
    ("asana-token", "asana token «1/{d16}:{a32}»"),
    ("twitch-token", "Twitch chat: PASS oauth:«{l30}»"),
    (
        "postgres-url",
        "DATABASE_URL=postgres://app:«{a14}»@db.internal:5432/app",
    ),
    ("mysql-url", "mysql://root:«{a14}»@127.0.0.1:3306/shop"),
    (
        "mongodb-url",
        "mongodb+srv://admin:«{a14}»@cluster0.abcde.mongodb.net/test",
    ),
    ("redis-url", "REDIS_URL=redis://:«{a14}»@cache:6379/0"),
    ("amqp-url", "amqp://guest:«{a14}»@rabbit:5672/"),
    (
        "url-password",
        "git clone https://deploy:«{a14}»@git.internal.dev/team/repo.git",
    ),
    (
        "command-line-password",
        "mysql -u root -p«{a14}» shop < dump.sql",
    ),
    ("env-secret", "DB_PASSWORD=«{a14}»\nDB_HOST=localhost"),
];

/// The alphabet a letter of [`SAMPLES`] stands for.
fn alphabet(code: char) -> &'static str {
    match code {
        'a' => ALNUM,
        'h' => HEX,
        'b' => B64,
        'u' => URLSAFE,
        'd' => "123456789",
        'U' => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        'l' => "abcdefghijklmnopqrstuvwxyz0123456789",
        'L' => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
        '2' => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        'g' => "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
        _ => unreachable!("no alphabet {code}"),
    }
}

/// Every kind's sample with `seed`: (kind, text, secret).
pub(crate) fn samples(seed: u64) -> Vec<(&'static str, String, String)> {
    let s = &mut seed.max(1);
    SAMPLES
        .iter()
        .map(|&(kind, template)| {
            let mut text = String::new();
            let mut rest = template;
            while let Some(open) = rest.find('{') {
                text.push_str(&rest[..open]);
                let close = open + rest[open..].find('}').expect("closed");
                let spec = &rest[open + 1..close];
                if spec == "crc" {
                    let body = rnd(ALNUM, 30, s);
                    let sum = base62_6(crc32(body.as_bytes()));
                    text.push_str(&body);
                    text.push_str(std::str::from_utf8(&sum).expect("ASCII"));
                } else if let Some(n) = spec.get(1..).and_then(|n| n.parse().ok()) {
                    text.push_str(&rnd(alphabet(spec.chars().next().expect("a code")), n, s));
                } else {
                    text.push_str(&rest[open..=close]);
                }
                rest = &rest[close + 1..];
            }
            text.push_str(rest);
            match (text.find('«'), text.find('»')) {
                (Some(a), Some(b)) => {
                    let secret = text[a + '«'.len_utf8()..b].to_owned();
                    (kind, text.replace(['«', '»'], ""), secret)
                }
                _ => (kind, text.clone(), text),
            }
        })
        .collect()
}

/// `text` where a tool's output carries it in a Claude Code record.
fn record_of(text: &str) -> String {
    serde_json::json!({
        "type": "user",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": text}]},
    })
    .to_string()
}

#[test]
fn every_kind_has_a_sample_and_they_are_over_fifty() {
    let samples = samples(7);
    for kind in Redactor::kinds() {
        assert!(
            samples.iter().any(|(k, _, _)| k == kind),
            "no sample of {kind}"
        );
    }
    assert!(Redactor::kinds().len() >= 50, "{}", Redactor::kinds().len());
}

#[test]
fn every_kind_is_redacted_where_a_record_carries_it() {
    let mut failed = Vec::new();
    let redactor = Redactor::new();
    let count = |kind: &str| {
        redactor
            .counts()
            .iter()
            .find(|c| c.0 == kind)
            .map_or(0, |c| c.1)
    };
    for seed in [1, 2, 3, 99] {
        for (kind, text, secret) in samples(seed) {
            for shown in [
                text.clone(),
                format!("line one\n{text}\nline three"),
                format!("\u{e9}{text}\u{e9}"),
            ] {
                let before = count(kind);
                let record = record_of(&shown);
                let out = redactor.redact_record(record.as_bytes());
                let out = std::str::from_utf8(&out).expect("UTF-8");
                let label = format!("[REDACTED:{kind}]");
                if !out.contains(&label) {
                    failed.push(format!("{kind} (seed {seed}): {out}"));
                    continue;
                }
                for line in secret.lines() {
                    assert!(
                        !out.contains(line),
                        "{kind} (seed {seed}) left {line:?} in {out}"
                    );
                }
                let parsed: serde_json::Value = serde_json::from_str(out).expect("still JSON");
                let content = parsed["message"]["content"][0]["content"].as_str().unwrap();
                assert!(content.contains(&label), "{kind}");
                assert_eq!(count(kind), before + 1, "{kind}");
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn a_secret_inside_escapes_leaves_them_whole() {
    let r = Redactor::new();
    let key = format!("AKIA{}", "QWERTYUIOPASDFGH");
    // A key right after `\n`, after `\u00e9`, before `\"`, after `\\`.
    for text in [
        format!(r#"{{"a":"x\n{key}\ny"}}"#),
        format!(r#"{{"a":"\u00e9{key}\u00e9"}}"#),
        format!(r#"{{"a":"\"{key}\""}}"#),
        format!(r#"{{"a":"\\{key}"}}"#),
    ] {
        let out = r.redact_record(text.as_bytes());
        let out = std::str::from_utf8(&out).unwrap();
        assert!(!out.contains(&key), "{out}");
        serde_json::from_str::<serde_json::Value>(out).expect("valid JSON");
    }
}

#[test]
fn a_value_found_once_is_redacted_everywhere_in_the_record() {
    // cursor-agent keeps the command line whole and split into words.
    let r = Redactor::new();
    let record = r#"{"type":"tool_call","tool_call":{"shellToolCall":{"args":{"command":"sshpass -p Hunter22pw ssh deploy@host","argv":["sshpass","-p","Hunter22pw","ssh","deploy@host"]}}}}"#;
    let out = r.redact_record(record.as_bytes());
    let out = std::str::from_utf8(&out).unwrap();
    assert!(!out.contains("Hunter22pw"), "{out}");
    assert_eq!(
        out.matches("[REDACTED:command-line-password]").count(),
        2,
        "{out}"
    );
    serde_json::from_str::<serde_json::Value>(out).expect("valid JSON");
    assert_eq!(r.counts(), vec![("command-line-password", 2)]);
}

/// Text that is no credential, each of which must come through untouched.
pub(crate) fn look_alikes() -> Vec<String> {
    let mut s = 5;
    let wrong_crc = format!("ghp_{}", rnd(ALNUM, 36, &mut s));
    vec![
        "session 4b1c9f0e-2a8d-4c1e-9f3a-0e1d2c3b4a59".into(),
        "toolu_01ABCdefGHIjklMNOpqrSTUv call_aBcDeFgHiJkLmNoPqRsTuVwX".into(),
        "commit 3f786850e387550fdab836ed7e6dc881de23001b".into(),
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        "\"integrity\": \"sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==\"".into(),
        "SGVsbG8sIHdvcmxkISBUaGlzIGlzIG9yZGluYXJ5IHRleHQu".into(),
        "/home/user/.ssh/id_rsa.pub and src/secret_store.rs".into(),
        "Enter your password to continue; the token limit is near".into(),
        "def login(user: str, password: str) -> bool:".into(),
        "AKIAIOSFODNN7EXAMPLE".into(),
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx".into(),
        wrong_crc,
        "Authorization: Bearer <token>".into(),
        "OPENAI_API_KEY=your-api-key".into(),
        "MAX_TOKENS=4096 and PASSWORD= and API_KEY=${API_KEY} and TOKEN=$GITHUB_TOKEN and SECRET=***".into(),
        "see https://github.com/org/repo and git@github.com:org/repo.git and http://localhost:8080/v@2".into(),
        "echo $PW | docker login --password-stdin".into(),
        "{\"auth\":\"dGhpcyBpcyBqdXN0IHRleHQ=\"}".into(),
        "from huggingface_hub import hf_hub_download; re_compile_pattern_for_the_parser".into(),
        "eyJhbGciOiJIUzI1NiJ9 is only a header".into(),
        "the Discord server and the twilio docs".into(),
        "postgres://localhost:5432/app and redis://cache:6379".into(),
        "mysql -u root -p".into(),
    ]
}

#[test]
fn look_alikes_come_through_byte_for_byte() {
    let r = Redactor::new();
    for text in look_alikes() {
        let record = record_of(&text);
        let out = r.redact_record(record.as_bytes());
        assert!(
            matches!(out, Cow::Borrowed(_)),
            "{text:?} became {}",
            String::from_utf8_lossy(&out)
        );
        assert_eq!(r.redact_text(&text), text);
    }
    assert_eq!(r.counts(), vec![]);
}

#[test]
fn plain_text_is_redacted_as_records_are() {
    let r = Redactor::new();
    let text = "The deploy used postgres://app:Sup3rSecretPw@db/app, see logs.";
    assert_eq!(
        r.redact_text(text),
        "The deploy used postgres://app:[REDACTED:postgres-url]@db/app, see logs."
    );
    assert!(Redactor::kinds().contains(&"postgres-url"));
}

#[test]
fn github_checksums_are_those_github_computes() {
    // CRC32 of "123456789" is the standard check value.
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(&base62_6(61), b"00000z");
    assert_eq!(&base62_6(62), b"000010");
}
