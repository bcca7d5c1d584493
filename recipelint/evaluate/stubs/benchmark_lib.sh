# recipelint's model of a benchmark helper library (benchmark_lib.sh).
#
# Used only when a recipe sources a benchmark_lib.sh that is not on disk.  These are
# recipelint's own definitions of the helpers' *contract* (what they require and when they
# stop the run), written for the abstract evaluator; they are never executed by a shell.
# Helpers not listed here are treated as unknown external commands.

export PORT="${PORT:-8888}"

check_env_vars() {
    local name
    for name in "$@"; do
        if [[ -z "${!name:-}" ]]; then
            echo "required environment variable $name is not set" >&2
            exit 1
        fi
    done
}

agentic_kv_offload_enabled() {
    if [[ -z "${KV_OFFLOADING:-}" ]]; then
        exit 1
    fi
    [[ "$KV_OFFLOADING" != "none" ]]
}

require_agentic_kv_offload_none() {
    if agentic_kv_offload_enabled; then
        exit 1
    fi
    if [[ -n "${KV_OFFLOAD_BACKEND:-}" ]]; then
        exit 1
    fi
}

require_agentic_kv_offload_backend() {
    if [[ -z "${KV_OFFLOADING:-}" ]]; then
        exit 1
    fi
    if [[ "$KV_OFFLOADING" == "none" ]]; then
        if [[ -n "${KV_OFFLOAD_BACKEND:-}" ]]; then
            exit 1
        fi
        return 1
    fi
    if [[ "$KV_OFFLOADING" != "dram" ]]; then
        exit 1
    fi
    if [[ "${KV_OFFLOAD_BACKEND:-}" != "$1" ]]; then
        exit 1
    fi
    if [[ ! "${TOTAL_CPU_DRAM_GB:-}" =~ ^[1-9][0-9]*$ ]]; then
        exit 1
    fi
    return 0
}
