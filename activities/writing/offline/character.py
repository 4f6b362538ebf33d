"""The offline CharacterAgent: one character sketch and its relationships to the cast.

The character is the one the request quotes by a new name, else a generated name; for MATCH_ARCHETYPE or
PLAN_CHARACTER about a known character the request names (and no new one: 一个, 新, a new), that character,
refined. Its role comes from the request's words (反派, 导师, 主角, ...), its archetype is the context's best
match, and it is tied to one or two existing characters (those the request names, else the most mentioned).
DESIGN_RELATIONSHIP about two known characters designs their relationship and no new character. The relationship
is the kind the request names (宿敌, 师徒, 恋人, ...; rival, mentor, old friend, ...: the one after 变成/became when
it names a change, else the first), else the one the role has. In English when the request is (`character_en`).
"""

import re

from activities.common.offline_labels import offline_label
from activities.writing.offline.character_en import BECOMING_EN, KINDS_EN, edge_en, kind_en, render_en, sketch_en
from activities.writing.offline.grounding import Grounding
from activities.writing.offline.names import gender_of, person_names
from activities.writing.story_facts import DECEASED
from models.writing.agents import AgentResult, CharacterSketch, RelationshipEdge
from models.writing.context import Archetype, CharacterState
from models.writing.intents import WritingIntent

LABEL = offline_label("角色设计")

_ROLES: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("反派", "敌人", "对手", "villain", "antagonist", "rival"), "反派", "对手"),
    (("导师", "师父", "师傅", "前辈", "mentor", "teacher"), "导师", "师徒"),
    (("恋人", "爱人", "感情", "女主", "男主", "love", "romance"), "感情线角色", "恋人"),
    (("主角", "主人公", "protagonist", "hero"), "主角", "同伴"),
)
"""Words of the request → the role, and the relationship that role has to the cast."""
_KINDS = re.compile(
    "宿敌|死敌|师徒|恋人|情侣|夫妻|兄弟|姐妹|兄妹|姐弟|仇人|盟友|旧识|故交|对手|朋友|知己|搭档|同伴|同门|情敌|主仆|父子|母女"
)
"""The kinds of relationship a Chinese request may name, as the design names them."""
_BECOMING = re.compile(r"变成|变为|成为|成了|转为")
_NEW_CHARACTER = re.compile(r"一个|一位|一名|新的?|\b(?:a|an|new)\b", re.IGNORECASE)
_DEFAULT_ROLE = ("配角", "旧识")
_TEMPERAMENTS = ("外冷内热，说话不多却句句算数", "看似随和，心里有一本谁也看不到的账", "倔强、记仇，也极重承诺")
_TIES = ("两人之间有一笔迟早要算清的旧账", "彼此都握着对方的把柄", "一次相遇改变了两人的命运")
_MOTIVES = ("想弄清一桩旧事的真相", "要还一笔多年前欠下的人情", "只想守住身边仅剩的人")


def _role(text: str) -> tuple[str, str]:
    lowered = text.lower()
    for words, role, relation in _ROLES:
        if any(word in lowered for word in words):
            return role, relation
    return _DEFAULT_ROLE


def _named_kind(grounding: Grounding) -> str | None:
    """The kind of relationship the request names, in its language: the one named after 变成/became when it names
    a change (从师徒变成宿敌 → 宿敌), else the first; None when it names none."""
    text = grounding.request.text
    kinds, becoming = (KINDS_EN, BECOMING_EN) if grounding.english else (_KINDS, _BECOMING)
    named = list(kinds.finditer(text))
    change = becoming.search(text)
    after = [m for m in named if change and m.start() >= change.end()]
    found = (after or named)[:1]
    if not found:
        return None
    return kind_en(found[0].group()) if grounding.english else found[0].group()


def _asks_for_new(grounding: Grounding) -> bool:
    """True when the request quotes a new name or asks for a new character (一个反派, a new rival)."""
    return bool(grounding.quoted_names() or _NEW_CHARACTER.search(grounding.request.text))


def _best_archetype(grounding: Grounding) -> Archetype | None:
    return max(grounding.context.archetypes, key=lambda a: a.score, default=None)


def _edge(grounding: Grounding, source: str, target: CharacterState, relation: str) -> RelationshipEdge:
    if target.status == DECEASED:
        description = f"{target.name}已故，留下的牵绊仍影响着{source}。"
        return RelationshipEdge(source=source, target=target.name, kind="故人", description=description)
    description = f"{source}与{target.name}是{relation}：{grounding.pick(_TIES, target.name)}。"
    return RelationshipEdge(source=source, target=target.name, kind=relation, description=description)


def _render(grounding: Grounding, sketches: list[CharacterSketch], edges: list[RelationshipEdge]) -> str:
    lines = [LABEL, f"要求：{grounding.topic}"]
    for sketch in sketches:
        lines += [f"姓名：{sketch.name}", f"定位：{sketch.role}"]
        archetype = _best_archetype(grounding)
        if sketch.archetype and archetype:
            lines.append(f"原型：{archetype.name}（{archetype.description}）")
        lines.append(f"简介：{sketch.description}")
    if edges:
        lines.append("关系：")
        lines += [f"- {e.source} → {e.target}（{e.kind}）：{e.description}" for e in edges]
    sources = grounding.source_titles()
    if sources:
        lines.append(f"参考：{'、'.join(sources)}")
    return "\n".join(lines)


def _sketch(
    grounding: Grounding, name: str, role: str, refined: CharacterState | None, archetype: Archetype | None
) -> CharacterSketch:
    if refined is not None:
        base = refined.description or f"{name}是故事里已有的角色。"
    else:
        places = grounding.places()
        base = f"{name}是故事里的{role}" + (f"，出身{places[0]}一带。" if places else "。")
    description = (
        f"{base}性格{grounding.pick(_TEMPERAMENTS, 'temperament')}；{grounding.pick(_MOTIVES, 'motive')}。"
        + (
            f"原型近于{archetype.name}：{'、'.join(archetype.traits[:3]) or archetype.description}。"
            if archetype
            else ""
        )
    )
    return CharacterSketch(
        name=name, role=role, description=description, archetype=archetype.name if archetype else None
    )


def _rendered(grounding: Grounding, sketches: list[CharacterSketch], edges: list[RelationshipEdge]) -> str:
    if grounding.english:
        return render_en(grounding, sketches, edges, _best_archetype(grounding))
    return _render(grounding, sketches, edges)


def design(grounding: Grounding) -> AgentResult:
    """The offline character design (see the module)."""
    intent = grounding.request.intent.intent
    text = grounding.request.text
    named = grounding.named()
    edge = edge_en if grounding.english else _edge
    role, relation = _role(text)
    relation = _named_kind(grounding) or relation
    if intent is WritingIntent.DESIGN_RELATIONSHIP and len(named) >= 2:
        edges = [edge(grounding, named[0].name, named[1], relation)]
        return grounding.answer(_rendered(grounding, [], edges), relationships=edges)

    archetype = _best_archetype(grounding)
    refining = intent in (WritingIntent.MATCH_ARCHETYPE, WritingIntent.PLAN_CHARACTER) and not _asks_for_new(grounding)
    refined = named[0] if named and refining else None
    if refined is not None:
        name = refined.name
    else:
        taken = {c.name for c in grounding.characters}
        quoted = grounding.quoted_names()
        name = (
            quoted[0]
            if quoted
            else person_names(text, 1, english=grounding.english, gender=gender_of(text), taken=taken)[0]
        )
    make_sketch = sketch_en if grounding.english else _sketch
    sketch = make_sketch(grounding, name, role, refined, archetype)
    others = [c for c in named if c.name != name] or sorted(
        (c for c in grounding.characters if c.name != name), key=lambda c: -c.mentions
    )
    edges = [edge(grounding, name, other, relation) for other in others[:2]]
    return grounding.answer(_rendered(grounding, [sketch], edges), characters=[sketch], relationships=edges)
