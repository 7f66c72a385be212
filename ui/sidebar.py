"""The shared sidebar: language, corpus (samples or upload), tokenizer and vocabulary settings."""
from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Callable, Collection

import streamlit as st

from lmcore.corpus import MAX_BYTES, SENTENCE_MODES, TOKENIZERS, Corpus, CorpusError, CorpusSettings
from lmcore.corpus.build import detect_language
from lmcore.corpus.bytes_to_text import decode_bytes
from lmcore.corpus.limits import APP_LIMITS
from lmcore.i18n import LANGUAGE_NAMES, LANGUAGES, language_from_locale
from lmcore.samples import DEFAULT_SYNTHETIC_SENTENCES, SAMPLES, default_settings, load_sample
from server.corpus_keys import built_tag, corpus_key, corpus_tag
from server.corpus_use import track_corpus
from server.corpus_worker import build_sample, build_upload
from server.models import keep_built, too_large_text
from server.owner import owner_id
from server.sizes import nbytes
from server.store import TooLarge
from server.stores import data_store, model_store
from server.streamlit_fixes import uploader_texts_css
from server.uploads import SETTINGS, forget_upload, keep_settings, keep_upload, keeping_uploads, kept_upload
from ui.state import labeller, lang, md_text, query_param, set_query_params, tr

log = logging.getLogger(__name__)
SYNTHETIC_SIZES = range(200, 20001, 200)


def widget_key(name: str) -> str:
    """The key of the sidebar widget that edits the setting ``st.session_state[name]``.

    The settings live in plain session state; their widgets are keyed by an epoch that moves on
    whenever the app itself changes the settings (an upload switches to it, a corpus brings its
    defaults). A request the browser sent before it saw such a change (a status fragment's poll,
    a quick click) still carries the old widget's value; under the old key Streamlit ignores it,
    where under one shared key it would put back the old setting (the upload replaced by the
    English sample)."""
    return f"{name}.{st.session_state.get('sidebar_epoch', 0)}"


def _set_settings(**values: object) -> None:
    """Change settings from the app's side: new widgets show them (see ``widget_key``)."""
    st.session_state.update(values)
    st.session_state["sidebar_epoch"] = st.session_state.get("sidebar_epoch", 0) + 1


def _store(name: str, key: str, then: Callable[[], None] | None, allowed: Collection | None) -> None:
    """A sidebar widget moved: its value becomes the setting — if it is the widget of this epoch
    (Streamlit still runs the callbacks of widgets the page no longer draws) and one of its options
    (a browser may still send an option's label in the language it was drawn in before, which a
    callback sees as it came)."""
    value = st.session_state[key]
    if key != widget_key(name) or (allowed is not None and value not in allowed):
        return
    st.session_state[name] = value
    if then is not None:
        then()


def _bound(name: str, then: Callable[[], None] | None = None, allowed: Collection | None = None) -> dict:
    """``key``/``on_change`` for the widget of setting ``name``, which starts at the setting's value."""
    key = widget_key(name)
    if key not in st.session_state:
        st.session_state[key] = st.session_state[name]
    return {"key": key, "on_change": _store, "args": (name, key, then, allowed)}


def _defaults(settings: CorpusSettings) -> dict:
    return {"tokenizer": settings.tokenizer, "lowercase": settings.lowercase, "sentence_mode": settings.sentence_mode}


def _on_source_change() -> None:
    source = st.session_state["source"]
    if source == "upload":
        language = st.session_state["upload"]["language"]
        _set_settings(**_defaults(CorpusSettings(tokenizer="jieba" if language == "zh" else "words",
                                                 lowercase=language != "zh")))
    else:
        _set_settings(**_defaults(default_settings(source)))


def _on_upload() -> None:
    """Keep the uploaded bytes in session state (they survive page changes) and switch to them."""
    file = st.session_state.get("uploader")
    if file is None:
        if st.session_state.pop("upload", None) is not None:
            _kept(forget_upload)
        if st.session_state.get("source") == "upload":
            _set_settings(source="english")
            _on_source_change()
        return
    data = file.getvalue()
    try:
        language = detect_language(decode_bytes(data)[0])
    except CorpusError:
        language = "en"  # the error itself is shown when the corpus is built
    st.session_state["upload"] = {
        "name": file.name,
        "data": data,
        "digest": hashlib.sha256(file.name.encode() + b"\0" + data).hexdigest(),  # the built corpus carries its name
        "language": language,
    }
    _set_settings(source="upload")
    _on_source_change()
    _kept(keep_upload, st.session_state["upload"], _settings_now())
    st.session_state["upload_kept_settings"] = _settings_now()


def _settings_now() -> dict:
    return {name: st.session_state[name] for name in SETTINGS}


def _kept(action: Callable, *args: object) -> object:
    """``action(store, owner, *args)`` on this browser's kept upload (``server.uploads``). The store
    being full or unreachable is not the student's problem: the upload still works in this session,
    it only would not come back in another one. Nothing at all unless uploads are kept."""
    if not keeping_uploads():
        return None
    try:
        return action(model_store(), owner_id(), *args)
    except Exception as error:  # noqa: BLE001 - TooLarge, or the shared store unreachable
        log.warning("upload not kept for its owner: %r", error)
        return None


def _restore_upload() -> None:
    """A new session of a browser that uploaded a text (before a reload, or on a replica that has
    since gone): its upload comes back, as the corpus unless the address names another one."""
    kept = _kept(kept_upload)
    if kept is None:
        return
    upload, settings = kept
    st.session_state["upload"] = upload
    st.session_state["upload_restored"] = upload["name"]
    if "corpus" not in st.query_params:
        st.session_state["source"] = "upload"
        _on_source_change()
        _set_settings(**settings)
    st.session_state["upload_kept_settings"] = {**_settings_now(), **settings}


def _own_name(corpus: Corpus, name: str) -> Corpus:
    """The uploaded corpus under the name this student gave it. Corpora are shared by content: the
    same bytes uploaded under another name are one corpus, built once, whose own name is the first
    uploader's; each student sees the name they chose (a copy sharing every list, memoised)."""
    if corpus.name == name:
        return corpus
    memo = st.session_state.get("_own_name")
    if memo is None or memo[0] is not corpus or memo[1] != name:
        memo = st.session_state["_own_name"] = (corpus, name, dataclasses.replace(corpus, name=name))
    return memo[2]


def _init_state() -> None:
    # Streamlit drops the state of widgets when the page changes; writing the language back as
    # plain session state keeps it across pages (the other settings are plain state already).
    if "lang" in st.session_state:
        st.session_state["lang"] = st.session_state["lang"]
    else:
        st.session_state["lang"] = query_param("lang", language_from_locale(st.context.locale), choices=LANGUAGES)
    if "source" not in st.session_state:
        st.session_state["source"] = query_param("corpus", "english", choices=list(SAMPLES))
        st.session_state["synthetic_size"] = query_param("sents", DEFAULT_SYNTHETIC_SENTENCES, choices=SYNTHETIC_SIZES)
        st.session_state.update(min_count=1, max_vocab=0)
        _on_source_change()
        _restore_upload()


def _build(source: str, settings: CorpusSettings, n_synthetic: int) -> Corpus:
    """The corpus for these settings: from the shared store, or built now with a progress bar."""
    upload = st.session_state.get("upload") if source == "upload" else None
    key = corpus_key(source, settings, n_synthetic, upload["digest"] if upload else "")

    built_in = not upload and settings == default_settings(source) and (
        source != "synthetic" or n_synthetic == DEFAULT_SYNTHETIC_SENTENCES)

    def build() -> Corpus:
        placeholder = st.empty()  # the progress disappears once the corpus is built (or refused)
        try:
            with placeholder.status(tr("sidebar.building"), expanded=True):
                bar = st.progress(0.0)
                progress = lambda fraction, stage, ahead=0: bar.progress(  # noqa: E731
                    min(fraction, 1.0), text=tr(f"sidebar.stage.{stage}", ahead=ahead))
                if built_in:
                    return load_sample(source, settings, n_synthetic)  # once per server, small: here
                limit = data_store().item_limit
                built = (build_upload(key, upload["data"], upload["name"], settings, limit, progress) if upload
                         else build_sample(key, source, settings, n_synthetic, limit))
                keep_built(built.corpus, built.counts, built.statistics)
                return built.corpus
        finally:
            placeholder.empty()

    if built_in:  # kept for everyone (never dropped)
        corpus = data_store().get_or_build(key, build, nbytes)
        track_corpus()
        return corpus
    tag = built_tag(key)
    corpus = data_store().get_or_build(key, build, nbytes, [tag])
    track_corpus(tag, corpus_tag(corpus))
    return corpus


def render_sidebar() -> Corpus:
    """Draw the shared sidebar, store language and corpus in session state, return the corpus."""
    _init_state()
    sidebar = st.sidebar
    sidebar.selectbox(tr("sidebar.language"), LANGUAGES, format_func=LANGUAGE_NAMES.get, key="lang")
    set_query_params(lang=st.session_state["lang"])  # a copied link opens in the language on screen
    sources = list(SAMPLES) + (["upload"] if "upload" in st.session_state else [])
    if st.session_state["source"] not in sources:
        _set_settings(source="english")
    upload_name = st.session_state.get("upload", {}).get("name", "")
    sidebar.radio(
        tr("sidebar.corpus"),
        sources,
        **_bound("source", then=_on_source_change, allowed=sources),
        format_func=labeller("sidebar.sample", name=md_text(upload_name)),
    )
    sidebar.file_uploader(
        tr("sidebar.upload"),
        type=["txt", "md"],
        key="uploader",
        on_change=_on_upload,
        help=tr("sidebar.upload_help", limit=MAX_BYTES // 2**20, limits=tr(
            "limits.help", chars=APP_LIMITS.max_token_chars, sentence=APP_LIMITS.max_sentence_tokens,
            tokens=APP_LIMITS.max_tokens, types=APP_LIMITS.max_types)),
    )
    if lang() != "en":  # Streamlit draws the uploader's button and limit line in English only
        sidebar.html(uploader_texts_css(tr("sidebar.upload_button"), tr("sidebar.upload_limits", limit=MAX_BYTES // 2**20)))
    source = st.session_state["source"]
    if source == "synthetic":
        sidebar.slider(tr("sidebar.synthetic_size"), 200, 20000, step=200, **_bound("synthetic_size"))
    with sidebar.expander(tr("sidebar.tokenizer"), expanded=False):
        st.selectbox(tr("sidebar.tokenizer"), TOKENIZERS, format_func=labeller("sidebar.tokenizer"), **_bound("tokenizer", allowed=TOKENIZERS))
        st.checkbox(tr("sidebar.lowercase"), **_bound("lowercase"))
        st.radio(tr("sidebar.sentence_mode"), SENTENCE_MODES, format_func=labeller("sidebar.sentence_mode"), horizontal=True,
                 **_bound("sentence_mode", allowed=SENTENCE_MODES))
        st.number_input(tr("sidebar.min_count"), 1, 1000, help=tr("sidebar.vocab_help"), **_bound("min_count"))
        st.number_input(tr("sidebar.max_vocab"), 0, 1_000_000, step=1000, help=tr("sidebar.vocab_help"), **_bound("max_vocab"))
    settings = CorpusSettings(
        tokenizer=st.session_state["tokenizer"],
        lowercase=st.session_state["lowercase"],
        min_count=int(st.session_state["min_count"]),
        max_vocab=int(st.session_state["max_vocab"]) or None,
        sentence_mode=st.session_state["sentence_mode"],
    )
    n_synthetic = int(st.session_state.get("synthetic_size", DEFAULT_SYNTHETIC_SENTENCES))
    refused = True
    try:
        corpus = _build(source, settings, n_synthetic)
        refused = False
    except CorpusError as error:
        st.error(tr("sidebar.upload_failed", reason=tr(error.key, **error.fields)), icon=":material/warning:")
        corpus = _build("english", default_settings("english"), n_synthetic)
    except TooLarge as error:
        st.error(too_large_text(error), icon=":material/warning:")
        corpus = _build("english", default_settings("english"), n_synthetic)
    if restored := st.session_state.pop("upload_restored", None):
        sidebar.info(tr("sidebar.upload_restored", name=md_text(restored)), icon=":material/restore:")
    if corpus.bounded:
        what = "; ".join(tr(f"limits.{name}", n=n, chars=APP_LIMITS.max_token_chars, sentence=APP_LIMITS.max_sentence_tokens,
                            tokens=APP_LIMITS.max_tokens) for name, n in corpus.bounded.items())
        sidebar.warning(tr("limits.applied", what=what))
    if source == "upload":
        st.query_params.pop("corpus", None)
        upload = st.session_state["upload"]
        if not refused:  # (refused: the English sample is shown instead)
            corpus = _own_name(corpus, upload["name"])
            if st.session_state.get("upload_kept_settings") != _settings_now():
                _kept(keep_settings, upload["digest"], _settings_now())
                st.session_state["upload_kept_settings"] = _settings_now()
    else:
        set_query_params(corpus=source)
    if source == "synthetic":
        set_query_params(sents=n_synthetic)
    else:
        st.query_params.pop("sents", None)
    st.session_state["corpus"] = corpus
    sidebar.container(key="corpus_summary").caption(tr("sidebar.summary", tokens=corpus.n_tokens, types=corpus.n_types, sentences=len(corpus.sentences)))
    return corpus
