#!/usr/bin/env bash
# Installs one real agent CLI at its pinned version into the agent cache (outside
# the clone, reused across runs) and prints the path of its executable.
#   install.sh claude|codex|opencode|pi|gemini|qwen|kilo
#   install.sh outdated      (the pins beside the registry's latest versions)
# The cache is $SIGNALTTY_AGENT_CACHE, else ~/.cache/signaltty-agents; each
# agent@version has its own directory, so changing a pin installs afresh.
# Fails loudly (exit 1, the npm log on stderr) when it cannot install.
set -euo pipefail

pin() {
    case $1 in
    claude) pkg=@anthropic-ai/claude-code version=2.1.332 bin=claude ;;
    codex) pkg=@openai/codex version=0.171.0 bin=codex ;;
    opencode) pkg=opencode-ai version=1.18.33 bin=opencode ;;
    pi) pkg=@mariozechner/pi-coding-agent version=0.73.1 bin=pi ;;
    gemini) pkg=@google/gemini-cli version=0.61.0 bin=gemini ;;
    crush) pkg=@charmland/crush version=0.96.1 bin=crush ;; # postinstall fetches its binary from GitHub: fails offline
    grok) pkg=@vibe-kit/grok-cli version=0.0.34 bin=grok ;;
    qwen) pkg=@qwen-code/qwen-code version=0.24.4 bin=qwen ;;
    kilo) pkg=@kilocode/cli version=7.7.7 bin=kilo ;;
    *) echo "unknown agent $1" >&2; exit 2 ;;
    esac
}

# `install.sh outdated`: each pin beside the registry's latest release, so a
# new agent version gets a run of the suite (and fresh screen fixtures).
if [ "${1:-}" = outdated ]; then
    for a in claude codex opencode pi gemini crush grok qwen kilo; do
        pin "$a"
        latest=$(npm view "$pkg" version 2>/dev/null || echo "?")
        mark=$([ "$latest" = "$version" ] && echo "" || echo "  <- newer")
        printf '%-9s %-32s pinned %-10s latest %s%s\n' "$a" "$pkg" "$version" "$latest" "$mark"
    done
    exit 0
fi

agent=${1:?agent name}
pin "$agent"

cache=${SIGNALTTY_AGENT_CACHE:-$HOME/.cache/signaltty-agents}
dir=$cache/$agent-$version
exe=$dir/node_modules/.bin/$bin
mkdir -p "$cache"
exec 9>"$cache/.$agent.lock"
flock 9
if [ ! -e "$dir/.installed" ] || [ ! -x "$exe" ]; then
    command -v npm >/dev/null 2>&1 || { echo "npm is needed to install $pkg" >&2; exit 1; }
    rm -rf "$dir"
    mkdir -p "$dir"
    if ! npm install --prefix "$dir" "$pkg@$version" --no-audit --no-fund >"$dir/install.log" 2>&1; then
        cat "$dir/install.log" >&2
        echo "cannot install $pkg@$version" >&2
        exit 1
    fi
    [ -x "$exe" ] || { echo "$pkg@$version installed no $bin" >&2; exit 1; }
    touch "$dir/.installed"
fi
printf '%s\n' "$exe"
