"""Refusals of the reader profiles and of teaching a table its set, bilingual like
:mod:`web.errors`, each with its HTTP status.

>>> err = ProfileNotFound(profile="abc")
>>> err.status, err.message("ja")
(404, 'プロファイル「abc」はありません。')
"""

from __future__ import annotations

from typing import Any

from web.errors import WebError


class ProfileNotFound(WebError):
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
