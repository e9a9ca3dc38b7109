"""A deterministic Korean corpus whose evidence sentences straddle chunk boundaries.

For each boundary ``B`` (default 400, 800, 1000, 1600 code points) the generator writes ``docs_per_boundary``
documents (default 3, so 12 cases). Each document is Korean filler prose with exactly one evidence sentence that
starts before code point ``B`` and ends after it (``start < B < end``), plus a Korean question about that sentence.
A fixed-size chunker whose window edge falls on ``B`` cuts the sentence in two unless its overlap carries the whole
sentence into the next window; that is what the sweep measures.

Guarantees, checked at generation (a violation raises ``RuntimeError``, it is never silently accepted):

- same arguments (seed included) -> the same documents, evidence offsets and questions, byte for byte;
- every evidence sentence and its subject name occur exactly once in the whole corpus: filler text never contains
  them, and no two cases share a subject name;
- the evidence straddles its boundary with at least ``min_side`` code points on each side, and is at most
  ``max_evidence_len`` code points long (80 by default: the smallest overlap of the default profiles, 400/80);
- ``document[start:end] == evidence``.

A chunk is relevant to a case only if it belongs to the case's document and contains the whole evidence span
(:func:`holds_evidence`). Everything is synthetic: the corpus tests the chunking mechanism, not language coverage.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

DEFAULT_BOUNDARIES: tuple[int, ...] = (400, 800, 1000, 1600)
"""The window sizes of the default fixed-size profiles: a window edge of a non-overlapping profile sits there."""

DEFAULT_SEED: int = 20241129
"""Seed of the committed results."""

DEFAULT_DOC_LENGTH: int = 2600
"""Minimum document length in code points: above the largest boundary plus the largest window, so every profile
makes at least two windows per document."""

_PLACES = ("시청", "도서관", "시민 회관", "박물관", "공원", "학교 강당", "지역 센터", "체육관", "전시장", "항구",
           "역 광장", "대학교", "미술관", "시장")  # fmt: skip
_TOPICS = ("기후 변화", "지역 경제", "교통 정책", "청소년 교육", "문화 예술", "공공 보건", "도시 농업", "환경 보호",
           "디지털 기술", "전통 음식", "노인 복지", "재활용")  # fmt: skip
_EVENTS = ("토론회", "설명회", "세미나", "전시회", "공청회", "워크숍", "발표회", "간담회")
_MANNERS = ("조용히", "성황리에", "차분하게", "활발하게", "예정대로", "순조롭게")
_PERSONS = ("담당 공무원", "한 연구자", "자원봉사자", "교사", "지역 주민", "기자", "상인 대표", "학생 대표")
_TIMES = ("지난주", "어제 오후", "올봄", "지난달", "이번 주말", "작년 가을", "오늘 아침")
_ACTIVITIES = ("강연", "조사", "회의", "현장 답사", "인터뷰", "설문 조사", "봉사 활동")
_PEOPLE = ("주민들", "학생들", "전문가들", "방문객들", "참가자들", "관계자들")
_ASPECTS = ("현황", "문제점", "발전 방향", "장단점", "역사", "미래")
_OPINIONS = ("다양한", "솔직한", "신중한", "새로운", "구체적인")
_TRENDS = ("꾸준히 개선되고 있는", "조금씩 변하고 있는", "여전히 논의 중인", "크게 달라지지 않은")
_THINGS = ("작은 가게들", "오래된 나무들", "산책로", "자전거 보관소", "벤치", "안내판")

# Made-up subject names: a stem and a suffix no filler word contains.
_NAME_STEMS = ("가람", "누리", "다솜", "라온", "마루", "새봄", "아라", "자람", "하늬", "온새", "미리내", "나래",
               "두리", "별하", "시나브", "윤슬")  # fmt: skip
_NAME_SUFFIXES = ("빛", "솔", "결", "뜰")

# (evidence template, question template); {n}, {y}, {m}, {d}, {k}, {h} are filled from the seed.
_EVIDENCE_TEMPLATES: tuple[tuple[str, str], ...] = (
    (
        "{name} 천문대의 새 망원경은 구경이 {n}센티미터이며 {y}년 봄에 처음 가동되었다.",
        "{name} 천문대의 새 망원경은 구경이 몇 센티미터인가요?",
    ),
    (
        "{name} 연구소의 올해 연구 예산은 {n}억 원으로 최종 확정되었다.",
        "{name} 연구소의 올해 연구 예산은 얼마로 확정되었나요?",
    ),
    (
        "{name} 다리의 총 길이는 {n}미터이고 공사는 {y}년에 끝났다.",
        "{name} 다리의 총 길이는 몇 미터인가요?",
    ),
    (
        "{name} 마을의 전통 축제는 매년 {m}월 {d}일에 마을 광장에서 열린다.",
        "{name} 마을의 전통 축제는 매년 언제 열리나요?",
    ),
    (
        "{name} 도서관이 소장한 고문서는 모두 {n}권이며 그중 일부만 공개된다.",
        "{name} 도서관이 소장한 고문서는 모두 몇 권인가요?",
    ),
    (
        "{name} 섬으로 가는 여객선은 하루에 {k}번 운항하며 첫 배는 오전 {h}시에 출발한다.",
        "{name} 섬으로 가는 여객선은 하루에 몇 번 운항하나요?",
    ),
)


@dataclass(frozen=True)
class BoundaryCase:
    """One question over one document; ``evidence == documents[doc_id][evidence_start:evidence_end]``."""

    case_id: str
    doc_id: str
    boundary: int
    query: str
    evidence: str
    evidence_start: int
    evidence_end: int
    subject: str


@dataclass(frozen=True)
class BoundaryCorpus:
    """The generated documents (``doc_id -> text``, generation order) and their cases."""

    seed: int
    boundaries: tuple[int, ...]
    documents: dict[str, str]
    cases: tuple[BoundaryCase, ...]


def _has_batchim(word: str) -> bool:
    last = word[-1]
    return "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 != 0


def _josa(word: str, with_batchim: str, without: str) -> str:
    return word + (with_batchim if _has_batchim(word) else without)


def _filler_sentence(rng: random.Random) -> str:
    c = rng.choice
    kind = rng.randrange(6)
    if kind == 0:
        return f"{c(_PLACES)}에서는 {c(_TOPICS)}에 관한 {_josa(c(_EVENTS), '이', '가')} {c(_MANNERS)} 열렸다."
    if kind == 1:
        return (
            f"{_josa(c(_PERSONS), '은', '는')} {c(_TIMES)} {c(_PLACES)}에서 {_josa(c(_TOPICS), '을', '를')} 주제로 "
            f"{_josa(c(_ACTIVITIES), '을', '를')} 이어 갔다."
        )
    if kind == 2:
        return (
            f"많은 {_josa(c(_PEOPLE), '이', '가')} {c(_TOPICS)}의 {c(_ASPECTS)}에 대해 {c(_OPINIONS)} 의견을 나누었다."
        )
    if kind == 3:
        return f"{c(_TIMES)} {c(_PLACES)}의 {_josa(c(_TOPICS), '은', '는')} {c(_TRENDS)} 것으로 나타났다."
    if kind == 4:
        return (
            f"{_josa(c(_PEOPLE), '은', '는')} {_josa(c(_TOPICS), '을', '를')} 더 잘 이해하기 위해 "
            f"{_josa(c(_ACTIVITIES), '을', '를')} 준비하였다."
        )
    return f"{c(_PLACES)} 주변에는 {_josa(c(_THINGS), '이', '가')} {c(_MANNERS)} 자리 잡고 있다."


class _Writer:
    """Appends sentences, starting a new paragraph every 4-6 sentences; tracks the text length."""

    def __init__(self, rng: random.Random) -> None:
        self.parts: list[str] = []
        self.length = 0
        self._rng = rng
        self._in_para = 0
        self._para = rng.randint(4, 6)

    def add(self, sentence: str, sep: str | None = None) -> None:
        """Append ``sentence``; ``sep`` forces the separator (``""`` is used before the first sentence)."""
        if not self.parts:
            sep = ""
        elif sep is None:
            sep = " "
            if self._in_para >= self._para:
                sep, self._in_para, self._para = "\n\n", 0, self._rng.randint(4, 6)
        self.parts.append(sep + sentence)
        self.length += len(sep) + len(sentence)
        self._in_para += 1

    def text(self) -> str:
        return "".join(self.parts)


def _evidence(rng: random.Random, name: str) -> tuple[str, str]:
    template, question = rng.choice(_EVIDENCE_TEMPLATES)
    values = {
        "name": name,
        "n": rng.randint(120, 9800),
        "y": rng.randint(1962, 2019),
        "m": rng.randint(1, 12),
        "d": rng.randint(1, 28),
        "k": rng.randint(2, 9),
        "h": rng.randint(5, 9),
    }
    return template.format(**values), question.format(**values)


def _write_document(
    rng: random.Random, boundary: int, evidence: str, doc_length: int, min_side: int
) -> tuple[str, int]:
    """Filler + evidence placed so that ``start + min_side <= boundary <= end - min_side``; returns (text, start)."""
    lo, hi = boundary - (len(evidence) - min_side), boundary - min_side  # allowed evidence starts
    target = rng.randint(lo, hi)
    pool = sorted({_filler_sentence(rng) for _ in range(400)})
    by_length: dict[int, str] = {}
    for s in pool:
        by_length.setdefault(len(s), s)
    longest = max(by_length)
    w = _Writer(rng)
    while target - w.length > 2 * (longest + 1) + 1:
        w.add(_filler_sentence(rng))
    # Close the gap with one or two pool sentences (joined by single spaces) so that the evidence starts inside
    # [lo, hi], as near the drawn target as possible; ties go to the shorter first sentence (deterministic).
    lead = 0 if not w.parts else 1
    options: list[tuple[int, int, tuple[str, ...]]] = []
    for n1, s1 in sorted(by_length.items()):
        start = w.length + lead + n1 + 1
        if lo <= start <= hi:
            options.append((abs(start - target), start, (s1,)))
        for n2, s2 in sorted(by_length.items()):
            start = w.length + lead + n1 + 1 + n2 + 1
            if lo <= start <= hi:
                options.append((abs(start - target), start, (s1, s2)))
    if not options:
        raise RuntimeError(f"could not place evidence at boundary {boundary}")
    _, start, closing = min(options, key=lambda o: (o[0], o[1], len(o[2])))
    for s in closing:
        w.add(s, sep=" ")
    w.add(evidence, sep=" ")
    if w.length - len(evidence) != start:
        raise RuntimeError(f"evidence placement drifted at boundary {boundary}")
    while w.length < doc_length:
        w.add(_filler_sentence(rng))
    return w.text(), start


def build_boundary_corpus(
    seed: int = DEFAULT_SEED,
    boundaries: tuple[int, ...] = DEFAULT_BOUNDARIES,
    docs_per_boundary: int = 3,
    doc_length: int = DEFAULT_DOC_LENGTH,
    min_side: int = 8,
    max_evidence_len: int = 80,
) -> BoundaryCorpus:
    """Generate the boundary corpus (see the module docstring for what is guaranteed).

    Raises:
        TypeError: if ``seed`` is not an int.
        ValueError: on an empty or non-positive boundary list, ``docs_per_boundary < 1``, more cases than distinct
            subject names, or a ``doc_length`` that does not leave room after the largest boundary.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if not boundaries or any(isinstance(b, bool) or not isinstance(b, int) or b <= 0 for b in boundaries):
        raise ValueError(f"boundaries must be positive ints, got {boundaries!r}")
    if len(set(boundaries)) != len(boundaries):
        raise ValueError(f"boundaries must be distinct, got {boundaries!r}")
    if docs_per_boundary < 1:
        raise ValueError(f"docs_per_boundary must be >= 1, got {docs_per_boundary}")
    names = [stem + suffix for stem in _NAME_STEMS for suffix in _NAME_SUFFIXES]
    n_cases = len(boundaries) * docs_per_boundary
    if n_cases > len(names):
        raise ValueError(f"at most {len(names)} cases can have distinct subjects, asked for {n_cases}")
    if doc_length < max(boundaries) + 2 * max_evidence_len:
        raise ValueError(f"doc_length {doc_length} leaves no room after boundary {max(boundaries)}")
    rng = random.Random(seed)
    subjects = rng.sample(names, n_cases)
    documents: dict[str, str] = {}
    cases: list[BoundaryCase] = []
    for b in boundaries:
        for j in range(docs_per_boundary):
            subject = subjects[len(cases)]
            evidence, query = _evidence(rng, subject)
            if len(evidence) > max_evidence_len or len(evidence) < 2 * min_side + 1:
                raise RuntimeError(f"evidence length {len(evidence)} outside [{2 * min_side + 1}, {max_evidence_len}]")
            text, start = _write_document(rng, b, evidence, doc_length, min_side)
            doc_id = f"boundary-{b:04d}-{j + 1}"
            cases.append(
                BoundaryCase(
                    case_id=f"q-{b:04d}-{j + 1}",
                    doc_id=doc_id,
                    boundary=b,
                    query=query,
                    evidence=evidence,
                    evidence_start=start,
                    evidence_end=start + len(evidence),
                    subject=subject,
                )
            )
            documents[doc_id] = text
    corpus = BoundaryCorpus(seed=seed, boundaries=tuple(boundaries), documents=documents, cases=tuple(cases))
    _check(corpus, min_side)
    return corpus


def _check(corpus: BoundaryCorpus, min_side: int) -> None:
    everything = "\n".join(corpus.documents.values())
    for case in corpus.cases:
        text = corpus.documents[case.doc_id]
        if text[case.evidence_start : case.evidence_end] != case.evidence:
            raise RuntimeError(f"{case.case_id}: evidence offsets do not match the text")
        if not case.evidence_start + min_side <= case.boundary <= case.evidence_end - min_side:
            raise RuntimeError(f"{case.case_id}: evidence does not straddle boundary {case.boundary}")
        if everything.count(case.evidence) != 1 or everything.count(case.subject) != 1:
            raise RuntimeError(f"{case.case_id}: evidence or subject {case.subject!r} is not unique in the corpus")
        if case.subject not in case.query:
            raise RuntimeError(f"{case.case_id}: the question does not name its subject")


def holds_evidence(case: BoundaryCase, doc_id: str, start: int, end: int) -> bool:
    """True when a chunk ``[start, end)`` of ``doc_id`` contains the case's whole evidence span."""
    return doc_id == case.doc_id and start <= case.evidence_start and end >= case.evidence_end
