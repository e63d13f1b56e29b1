"""The token usage the mock reports: MOCK_USAGE_TOKENS (default 1000),
so a test can drive an agent's context as full as it likes."""

import os


def tokens() -> int:
    return int(os.environ.get("MOCK_USAGE_TOKENS", "1000"))
