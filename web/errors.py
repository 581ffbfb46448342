"""Refusals of the web layer, bilingual like the referee's, each with its HTTP status.

The API answers every refusal as ``{"error": {"code", "message", "params"}}``
in the requested language; :func:`http_status` picks the status code.

>>> err = TableNotFound(table="abc")
>>> http_status(err), err.message("ja")
(404, 'テーブル「abc」はありません。')
"""

from __future__ import annotations

from typing import Any, ClassVar

from referee.errors import (
    GameOver,
    InvalidOption,
    MalformedEvent,
    MalformedLog,
    Misread,
    NotYourTurn,
    OutOfOrder,
    RefereeError,
    UnknownPlayer,
)


class WebError(RefereeError):
    """A request the server refuses before (or instead of) asking the referee."""

    code = "web_error"
    status: ClassVar[int] = 400
    templates = {"en": "{reason}", "ja": "{reason}"}


class BadRequest(WebError):
    """The request body or a parameter is not what the route documents."""

    code = "bad_request"
    status = 400
    templates = {"en": "Bad request: {reason}.", "ja": "リクエストが正しくありません: {reason_ja}。"}

    def __init__(self, reason: str, reason_ja: str | None = None, **params: Any) -> None:
        super().__init__(reason=reason, reason_ja=reason_ja or reason, **params)


class NotJSON(WebError):
    code = "not_json"
    status = 415
    templates = {
        "en": "The request body must be JSON sent with Content-Type: application/json.",
        "ja": "リクエスト本文はJSON（Content-Type: application/json）で送ってください。",
    }


class TooLarge(WebError):
    code = "too_large"
    status = 413
    templates = {
        "en": "The request is too large (at most {limit} bytes).",
        "ja": "リクエストが大きすぎます（最大{limit}バイト）。",
    }


class NotFound(WebError):
    code = "not_found"
    status = 404
    templates = {"en": "There is nothing at {path}.", "ja": "{path} は見つかりません。"}


class MethodNotAllowed(WebError):
    code = "method_not_allowed"
    status = 405
    templates = {"en": "{method} is not allowed on {path}.", "ja": "{path} には {method} は使えません。"}


class TableNotFound(WebError):
    code = "table_not_found"
    status = 404
    templates = {"en": "There is no table {table!r}.", "ja": "テーブル「{table}」はありません。"}


class ReadingNotFound(WebError):
    code = "reading_not_found"
    status = 404
    templates = {"en": "Table {table} has no reading {reading}.", "ja": "テーブル{table}に読み取り{reading}はありません。"}


class TokenRequired(WebError):
    code = "token_required"
    status = 403
    templates = {
        "en": "Changing table {table} needs its join token (scan the QR code on the host screen).",
        "ja": "テーブル{table}を操作するには参加トークンが必要です（ホスト画面のQRコードを読み取ってください）。",
    }


class HostOnly(WebError):
    code = "host_only"
    status = 403
    templates = {
        "en": "Only the host computer may {what}.",
        "ja": "{what_ja}はホストのコンピューターからのみできます。",
    }


class ForbiddenHost(WebError):
    code = "forbidden_host"
    status = 403
    templates = {
        "en": "Requests for host {host!r} are refused (this server answers only its own address).",
        "ja": "ホスト「{host}」宛てのリクエストは拒否されます。",
    }


class UseReveal(WebError):
    code = "use_reveal"
    status = 400
    templates = {
        "en": "A {event} is read from the table: use the reveal route (POST /api/tables/<id>/reveal).",
        "ja": "「{event}」はテーブルから読み取ります: POST /api/tables/<id>/reveal を使ってください。",
    }


class NothingToUndo(WebError):
    code = "nothing_to_undo"
    status = 409
    templates = {"en": "There is nothing to undo.", "ja": "取り消せる操作がありません。"}


class NotExpectingReading(WebError):
    code = "not_expecting_reading"
    status = 409
    templates = {
        "en": "The table is not waiting for a reading now (nothing to reveal or roll).",
        "ja": "今は読み取りを待っていません（公開やロールの場面ではありません）。",
    }


class NoSettledReading(WebError):
    """No reading settled in time; ``camera`` says why (:func:`web.session.no_settled_reading`)
    and ``advice`` what the table can do about it.

    >>> NoSettledReading(camera="camera online", camera_ja="カメラはオンライン",
    ...                  advice="hold still", advice_ja="動かさずに待つ").message("en")
    'The camera has no settled reading yet (camera online); hold still, or enter the reading by hand.'
    """

    code = "no_settled_reading"
    status = 409
    templates = {
        "en": "The camera has no settled reading yet ({camera}); {advice}, or enter the reading by hand.",
        "ja": "カメラの読み取りがまだ安定していません（{camera_ja}）。{advice_ja}か、手で入力してください。",
    }


class StaleReading(WebError):
    code = "stale_reading"
    status = 409
    templates = {
        "en": "Reading {reading} no longer belongs to the game ({reason}).",
        "ja": "読み取り{reading}はもうゲームに関係していません（{reason_ja}）。",
    }

    def __init__(self, reading: int, reason: str, reason_ja: str) -> None:
        super().__init__(reading=reading, reason=reason, reason_ja=reason_ja)


class LaterEventsConflict(WebError):
    code = "later_events_conflict"
    status = 409
    templates = {
        "en": "With this correction event {event} no longer follows the rules ({reason}); undo back to the reveal first.",
        "ja": "この修正をするとイベント{event}がルールに合わなくなります（{reason_ja}）。先に公開の時点まで取り消してください。",
    }


class Conflict(WebError):
    code = "conflict"
    status = 409
    templates = {
        "en": "The table changed at the same time; please try again.",
        "ja": "同時にテーブルが変更されました。もう一度お試しください。",
    }


class DiscardReadingUnavailable(WebError):
    code = "discard_reading_unavailable"
    status = 409
    templates = {
        "en": "Only a Doubt table reads a discarded four of a kind from the camera.",
        "ja": "4枚組の読み取りはダウトのテーブルだけで使えます。",
    }


class NotFourOfAKind(WebError):
    code = "not_four_of_a_kind"
    status = 422
    templates = {
        "en": "The camera read {read}, not four cards of one rank: lay the four cards face up, apart, and read again (or choose the rank by hand).",
        "ja": "カメラの読み取りは{read_ja}で、同じランクの4枚ではありません。4枚を表向きに離して置き、もう一度読み取るか、ランクを手で選んでください。",
    }


class OddsUnavailable(WebError):
    code = "odds_unavailable"
    status = 409
    templates = {"en": "Odds are available only {reason}.", "ja": "確率は{reason_ja}のみ表示できます。"}


# --- reader profiles and teaching a table its set -----------------------------------------------

class ProfileNotFound(WebError):
    """
    >>> err = ProfileNotFound(profile="abc")
    >>> err.status, err.message("ja")
    (404, 'プロファイル「abc」はありません。')
    """

    code = "profile_not_found"
    status = 404
    templates = {"en": "There is no reader profile {profile!r}.", "ja": "プロファイル「{profile}」はありません。"}


class BadProfileFile(WebError):
    """An imported profile file that is not one this server writes; nothing was kept."""

    code = "bad_profile_file"
    status = 400
    templates = {"en": "This is not a profile file tableref can import: {reason}.",
                 "ja": "読み込めるプロファイルのファイルではありません: {reason_ja}。"}

    def __init__(self, reason: str, reason_ja: str | None = None, **params: Any) -> None:
        super().__init__(reason=reason, reason_ja=reason_ja or reason, **params)


class ProfileFileTooLarge(WebError):
    code = "profile_file_too_large"
    status = 413
    templates = {"en": "The profile file is too large (at most {limit} bytes, unpacked at most {unpacked} bytes).",
                 "ja": "プロファイルのファイルが大きすぎます（最大{limit}バイト、展開後最大{unpacked}バイト）。"}


class NotAZip(WebError):
    code = "not_a_profile_zip"
    status = 415
    templates = {"en": "Send the profile file itself (a .zip exported by tableref) with Content-Type: application/zip.",
                 "ja": "プロファイルのファイル（tablerefが書き出した.zip）をContent-Type: application/zipで送ってください。"}


class NoTeachingReader(WebError):
    code = "no_teaching_reader"
    status = 409
    templates = {"en": "This server has no dice reader ({reason}), so it cannot teach a profile.",
                 "ja": "このサーバーにはダイスの読み取りモデルがない（{reason}）ため、プロファイルを教えられません。"}


class ProfileForOtherModels(WebError):
    code = "profile_for_other_models"
    status = 409
    templates = {"en": "Profile {profile!r} was made for other reader models; teach it again "
                       "(tableref teach --profile DIR) before a table reads with it.",
                 "ja": "プロファイル「{profile}」は別の読み取りモデル用です。テーブルで使う前に教え直してください"
                       "（tableref teach --profile DIR）。"}


class NoProfileChosen(WebError):
    code = "no_profile_chosen"
    status = 409
    templates = {"en": "Table {table} has no reader profile: choose or create one first.",
                 "ja": "テーブル{table}にはプロファイルがありません。先に選ぶか作成してください。"}


class NoTeachPhoto(WebError):
    code = "no_teach_photo"
    status = 409
    templates = {"en": "There is no photo {photo} waiting to be confirmed at this table: read the table again.",
                 "ja": "このテーブルで確認待ちの写真{photo}はありません。もう一度読み取ってください。"}


class TaughtNotFound(WebError):
    code = "taught_not_found"
    status = 404
    templates = {"en": "Table {table} taught no photo {entry}.", "ja": "テーブル{table}が教えた写真{entry}はありません。"}


class AlreadyUndone(WebError):
    code = "taught_already_undone"
    status = 409
    templates = {"en": "That teaching was already taken back.", "ja": "その教えた写真はすでに取り消されています。"}


class UndoLaterTeaching(WebError):
    code = "undo_later_teaching_first"
    status = 409
    templates = {"en": "The same photo was taught again later: undo that teaching first.",
                 "ja": "同じ写真が後でもう一度教えられています。先にそちらを取り消してください。"}


_MALFORMED = (MalformedLog, MalformedEvent, InvalidOption, UnknownPlayer)
_ILLEGAL_NOW = (NotYourTurn, OutOfOrder, GameOver)


def http_status(err: RefereeError) -> int:
    """400 for what cannot be read, 422 for a misread, 409 for what the rules refuse now."""
    if isinstance(err, WebError):
        return err.status
    if isinstance(err, _MALFORMED):
        return 400
    if isinstance(err, Misread):
        return 422
    if isinstance(err, _ILLEGAL_NOW):
        return 409
    return 409  # a game's own refusals (an illegal bid, a wrong shout ...) are moves the rules refuse now
