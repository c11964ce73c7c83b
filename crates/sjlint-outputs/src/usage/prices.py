#!/usr/bin/env python3
"""Builds prices.json, the price table `sjlint usage` bundles, from LiteLLM's
model_prices_and_context_window_backup.json of one or more litellm wheels (PyPI), the newest
last: each price of a model is taken from the newest wheel that gives it, so that models and
tiers a newer list dropped keep their last known price.

    pip download litellm==1.77.7 litellm==1.110.2 --no-deps -d wheels
    python3 prices.py 2026-11-29 wheels/litellm-1.77.7-*.whl wheels/litellm-1.110.2-*.whl > prices.json

Kept: the models the agents sjlint reads name (no provider prefix, chat models of the
providers below), and the fields sjlint prices with, in LiteLLM's own names and shape, so that
`--prices FILE` reads a full LiteLLM file the same way.
"""
import json
import sys
import zipfile

PROVIDERS = {"anthropic", "openai", "gemini", "vertex_ai-language-models", "xai", "deepseek",
             "moonshot", "mistral", "dashscope", "zai"}
# Providers LiteLLM lists only as `provider/model`: kept under the model's own name (what the
# agents write), unless a bare entry of that name exists.
PREFIXED = {"xai", "deepseek", "moonshot", "mistral", "dashscope", "zai", "gemini"}
FIELDS = [
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "input_cost_per_token_above_200k_tokens",
    "output_cost_per_token_above_200k_tokens",
    "cache_read_input_token_cost_above_200k_tokens",
    "cache_creation_input_token_cost_above_200k_tokens",
]


def main():
    date, wheels = sys.argv[1], sys.argv[2:]
    table, versions = {}, []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as z:
            data = json.loads(z.read("litellm/model_prices_and_context_window_backup.json"))
        versions.append(wheel.rsplit("/", 1)[-1].split("-")[1])
        prefixed = {}
        for name, entry in data.items():
            if not isinstance(entry, dict) or name == "sample_spec":
                continue
            provider = entry.get("litellm_provider")
            if provider not in PROVIDERS or entry.get("mode") not in ("chat", "responses"):
                continue
            kept = {f: entry[f] for f in FIELDS if isinstance(entry.get(f), (int, float))}
            if "input_cost_per_token" not in kept or "output_cost_per_token" not in kept:
                continue
            kept["litellm_provider"] = provider
            head, _, bare = name.partition("/")
            if not bare:
                table[name] = {**table.get(name, {}), **kept}
            elif head == provider and provider in PREFIXED and "/" not in bare:
                prefixed[bare] = kept
        for bare, kept in prefixed.items():
            if bare not in table:
                table[bare] = kept
    out = {
        "_source": "LiteLLM's price list (litellm " + " and ".join(versions) + " on PyPI)",
        "_date": date,
    }
    out.update(sorted(table.items()))
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
