"""Page texts of reader profiles and of teaching a table its set, in English and Japanese
(merged into :data:`web.i18n.STRINGS`; ``{name}`` fields are filled by the page script)."""

from __future__ import annotations

TEACH_STRINGS: dict[str, dict[str, str]] = {
    "teach_link": {"en": "Teach this set", "ja": "このセットを教える"},
    "teach_title": {"en": "Teach tableref this set", "ja": "このセットをtablerefに教える"},
    "teach_help": {"en": "Roll all the dice (or lay out some cards), then read them. Confirm the reading, or tap a "
                         "die on the photo to correct it first: each confirmed photo teaches the table's profile.",
                   "ja": "ダイスを全部振って（またはカードを並べて）読み取ります。読み取りを確認するか、先に写真のダイスを"
                         "タップして修正します。確認した写真はテーブルのプロファイルに教えられます。"},
    "teach_profile": {"en": "Reader profile", "ja": "読み取りプロファイル"},
    "teach_none": {"en": "— none —", "ja": "— なし —"},
    "teach_new_name": {"en": "New profile name", "ja": "新しいプロファイルの名前"},
    "teach_create": {"en": "Create", "ja": "作成"},
    "teach_rename": {"en": "Rename", "ja": "名前を変更"},
    "teach_delete": {"en": "Delete profile", "ja": "プロファイルを削除"},
    "teach_delete_confirm": {"en": "Delete this profile and its photos?", "ja": "このプロファイルと写真を削除しますか？"},
    "teach_export": {"en": "Export", "ja": "書き出す"},
    "teach_import": {"en": "Import a profile file", "ja": "プロファイルのファイルを読み込む"},
    "teach_read": {"en": "Roll, then read", "ja": "振ってから読み取る"},
    "teach_reading": {"en": "Reading the still table…", "ja": "静止したテーブルを読み取り中…"},
    "teach_confirm": {"en": "Confirm and teach", "ja": "確認して教える"},
    "teach_discard": {"en": "Discard", "ja": "破棄"},
    "teach_photos": {"en": "{n} photos taught", "ja": "{n}枚を教えました"},
    "teach_held_out": {"en": "On rolls held out from the teaching: {acc} read right, {wrong} read surely wrong ({dice} dice)",
                       "ja": "教えていないロールで: 正しく読めた{acc}、確信して誤った{wrong}（ダイス{dice}個）"},
    "teach_held_out_none": {"en": "Teach at least 2 photos to see how well it reads.",
                            "ja": "2枚以上教えると読み取りの精度を表示します。"},
    "teach_measuring": {"en": "(measuring the newest photos…)", "ja": "（新しい写真で測定中…）"},
    "teach_ready": {"en": "Ready: this profile reads your set.", "ja": "準備完了: このプロファイルでセットを読み取れます。"},
    "teach_not_ready": {"en": "Not ready yet: it needs {photos} photos, {acc} read right and at most {wrong} surely wrong.",
                        "ja": "まだ準備中: {photos}枚以上、正しく読めた{acc}以上、確信して誤った{wrong}以下が目安です。"},
    "teach_learn": {"en": "Teach during play (every confirmed reveal and correction)",
                    "ja": "プレイ中も教える（確定した公開と修正のたびに）"},
    "teach_log": {"en": "Taught photos", "ja": "教えた写真"},
    "teach_source_teach": {"en": "teaching", "ja": "教える画面"},
    "teach_source_reveal": {"en": "reveal", "ja": "公開"},
    "teach_source_correction": {"en": "correction", "ja": "修正"},
    "teach_undone": {"en": "undone", "ja": "取消済み"},
    "teach_back": {"en": "Back to the table", "ja": "テーブルに戻る"},
    "teach_choose_first": {"en": "Choose or create a profile first.", "ja": "先にプロファイルを選ぶか作成してください。"},
    "teach_host_only": {"en": "Profiles are created, exported and imported on the host computer.",
                        "ja": "プロファイルの作成・書き出し・読み込みはホストのコンピューターで行います。"},
}
