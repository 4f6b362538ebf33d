"""A model simulator for the test suite (issue 25): a loopback server speaking OpenAI Chat Completions and
Anthropic Messages, whole and streamed, whose answers are built from each request (a valid instance of the JSON
schema it asks for, a tool call with valid arguments, or prose in the request's language), paced by a latency
profile, with quirk modes on a schedule, deterministic by seed, and a log of every request.

Use it from any test through the `simulator` fixture (reset to instant, no quirks, seed 0 for each test):

    async def test_something(simulator: Simulator) -> None:
        simulator.profile, simulator.time_scale = REALISTIC, 0.05      # 20× faster, same shape
        simulator.quirks = [QuirkRule(Quirk.FENCE, every=3), QuirkRule(Quirk.RATE_LIMIT, first=1)]
        settings = settings_for(tmp_path, **simulator_settings(simulator, "anthropic"))
        ...
        assert [call.quirk for call in simulator.log] == [...]

Modules: `server` (HTTP, pacing, transport quirks, the log), `requests` (what a request asks for), `answers`
(what the model says, content quirks), `instances` (values valid for a JSON Schema), `text` (prose, tokens),
`wire` (each protocol's bodies and SSE events), `images` (OpenAI Images' generations: the image model), `profiles`,
`quirks`, `fixtures` (the pytest fixture and the Settings fields), `examples` (the models and tool the tests ask
for).
"""
