"""The post's opening and closing over HTTP: the offline post's hook (after the offline label) and its call to
action are in the copy-ready text, and the post (`opening`, `closing`) and its Markdown show them too, so the
preview says it is an offline draft, as the text does."""

from tests.api.conftest import Gateway
from tests.api.content.test_post_export import finished_run

LABEL = "【离线草稿·未接入大模型】"


async def test_the_offline_label_opening_and_call_to_action_reach_the_post_and_its_markdown(gateway: Gateway) -> None:
    run_id = await finished_run(gateway)

    post = (await gateway.http.get(f"/v1/content/runs/{run_id}/post")).json()
    text = (await gateway.http.get(f"/v1/content/runs/{run_id}/export.txt")).text
    markdown = (await gateway.http.get(f"/v1/content/runs/{run_id}/export.md")).text

    assert post["opening"].startswith(LABEL) and len(post["opening"]) > len(LABEL), post["opening"]
    assert post["closing"] and text.rstrip().split("\n\n")[1].endswith(post["closing"])
    assert post["opening"] in text and post["opening"] in markdown and post["closing"] in markdown
    assert markdown.index(post["opening"]) < markdown.index("## ") < markdown.index(post["closing"])
    sections = "".join(section["text"] or "" for section in post["sections"])
    assert LABEL not in sections and post["closing"] not in sections, "said once, not repeated in a section"


async def test_an_english_posts_opening_carries_the_english_offline_label(gateway: Gateway) -> None:
    run_id = await finished_run(
        gateway, topic="How to pack light for a week", evidence=["Roll clothes: it saves 30% of the space."]
    )

    post = (await gateway.http.get(f"/v1/content/runs/{run_id}/post")).json()

    assert post["opening"].startswith("[Offline draft"), post["opening"]
