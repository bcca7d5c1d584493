import re

from recipelint.engines.clients import ClientCall
from recipelint.engines.launches import Launch
from recipelint.lint.rulebase import Rule

#: the port in a base URL (`http://0.0.0.0:8888`, `http://localhost:8000/v1`), as written
_URL_PORT = re.compile(r"^[a-z]+://[^/:]+:([^/]*)(?:/.*)?$")


class ClientServerMismatch(Rule):
    """
    ## What it does
    Reports a benchmark client call (`run_benchmark_serving`, `vllm bench serve`,
    `python -m sglang.bench_serving`, `benchmark_serving.py`) that talks to another port than
    the server the recipe started listens on (or whose base URL has no number for its port:
    `http://0.0.0.0:\\$PORT`), or — for a vLLM server — asks for a model name the server does
    not serve (`--served-model-name`, else the model as given to `vllm serve`).

    ## Why is this bad?
    A client on the wrong port gets "connection refused" for every request; vLLM answers a
    request for a model name it does not serve with 404 "The model `X` does not exist"
    (vllm/entrypoints/serve/engine/serving.py `_check_model`, vLLM 0.33.0).  Either way the
    server was started for nothing and the sweep point has no result.

    ## Example
    ```bash
    vllm serve "$MODEL_PATH" --served-model-name dsv4 --port 8000 &
    run_benchmark_serving --model "$MODEL" --port 8888 ...
    ```

    ## Use instead
    Pass the client the server's own port and served name (one variable for each).

    ## Exceptions
    Only paths with one server launch and no router or proxy started before the client
    (rules/data/clients.yaml `proxies`) are judged, and only values known at the sweep point
    on both sides; a client without an explicit port or URL takes its default and is not
    judged, nor an empty port (a variable no sweep point sets).  Model names are compared for
    vLLM servers only (SGLang serves any name), not with `VLLM_SKIP_MODEL_NAME_VALIDATION` set.
    Clients are followed at one sweep point per config entry and kind of run (see RL801).
    """

    code = "RL803"
    name = "client-server-mismatch"
    severity = "error"

    def check(self, ctx):
        found: dict = {}
        for pr in ctx.result.points:
            for path in pr.paths:
                launches: list = []
                proxied = False
                for ev in path.events:
                    if isinstance(ev, Launch):
                        launches.append(ev)
                    elif isinstance(ev, ClientCall) and ev.proxy:
                        proxied = True
                    elif isinstance(ev, ClientCall) and len(launches) == 1 and not proxied:
                        for key, loc, msg, related in self._mismatches(ev, launches[0]):
                            entry = found.setdefault((key, loc.real().source.path, loc.real().start), [loc, msg, related, []])
                            if pr.point not in entry[3]:
                                entry[3].append(pr.point)
        for (key, _, _), (loc, msg, related, points) in found.items():
            yield ctx.finding(loc, msg, points, related, key=key)

    def _mismatches(self, client: ClientCall, lc: Launch):
        server_port = lc.get("--port")
        url = client.options.get("base_url")
        port = client.options.get("port")
        got = None
        if url is not None and url[1] is not None and url[1].text is not None:
            m = _URL_PORT.match(url[1].text.strip())
            got = (m.group(1), url[1]) if m else None
            if got is not None and got[0] and not got[0].isdigit():
                # `--base-url http://0.0.0.0:\$PORT`: the port is the text `$PORT`
                msg = (
                    f"the benchmark client's base URL `{url[1].text.strip()}` has `{got[0]}` for its port, not a number; "
                    "give the server's port"
                    + (" (a `$` kept literally: an escaped or single-quoted variable)" if "$" in got[0] else "")
                    + ": the client cannot connect and the sweep point has no result"
                )
                yield (f"url|{client.client}", url[1].value_loc or client.loc, msg, [])
                got = None
            elif got is not None and not got[0]:
                got = None  # an empty port: a variable the sweep point does not set (not judged here)
        elif url is None and port is not None and port[1] is not None and port[1].text is not None:
            got = (port[1].text.strip(), port[1])
        if (
            got is not None
            and server_port is not None
            and server_port.text is not None
            and got[0].isdigit()
            and server_port.text.strip().isdigit()
            and int(got[0]) != int(server_port.text)
        ):
            msg = (
                f"the benchmark client connects to port {got[0]}, but the {lc.engine} server it benchmarks listens on "
                f"port {server_port.text.strip()} (line {lc.loc.real().span.line}): every request fails and the sweep "
                "point has no result; connect to the server's port"
            )
            yield (
                f"port|{client.client}",
                got[1].value_loc or client.loc,
                msg,
                [(server_port.value_loc, "the server's port")],
            )
        if lc.engine != "vllm" or "VLLM_SKIP_MODEL_NAME_VALIDATION" in lc.env:
            return
        sent = client.options.get("served_model") or client.options.get("model")
        if sent is None or sent[1] is None or sent[1].text is None:
            return
        names = self._served_names(lc)
        if names is None or sent[1].text in names:
            return
        shown = ", ".join(f"`{n}`" for n in names)
        msg = (
            f"the benchmark client asks for model `{sent[1].text}`, but the vLLM server (line {lc.loc.real().span.line}) "
            f"serves only {shown}: vLLM answers every request with 404 “The model does not exist”; ask for a name it serves"
        )
        flag = lc.get("--served-model-name")
        where = flag.value_loc if flag is not None else (lc.model.value_loc if lc.model is not None else lc.loc)
        yield (f"model|{client.client}", sent[1].value_loc or client.loc, msg, [(where, "the names the server serves")])

    @staticmethod
    def _served_names(lc: Launch):
        """The names a vLLM server answers to, or None when one is not known."""
        flag = lc.get("--served-model-name")
        if flag is not None:
            if flag.text is None:
                return None
            names = [flag.text]
            # `--served-model-name a b`: the words after the first are taken for positionals
            after = [
                w for w in lc.positionals if w.loc is not None and flag.word.loc is not None and w.loc.start > flag.word.loc.start
            ]
            if after:
                return None
            return names
        m = lc.model
        if m is None or m.text is None:
            return None
        return [m.text]
