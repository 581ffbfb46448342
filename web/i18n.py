"""Page texts in English and Japanese, and how a request picks its language.

The language is ``?lang=`` (remembered in a cookie), else the cookie, else the
best match of ``Accept-Language``, else English.

>>> text("undo", "ja"), text("undo", "en")
('取り消し', 'Undo')
"""

from __future__ import annotations

from typing import Any

from web.teach_i18n import TEACH_STRINGS

LANGUAGES = ("en", "ja")

GAME_NAMES = {
    "liars-dice": {"en": "Liar's Dice", "ja": "ライアーズダイス"},
    "nine-dice": {"en": "Nine Dice", "ja": "ナインダイス"},
    "doubt": {"en": "Doubt", "ja": "ダウト（ネ・ベリシ）"},
    "pin456": {"en": "Pin-456", "ja": "ピン・シゴロ（Pin-456）"},
}

STRINGS: dict[str, dict[str, str]] = {
    "app": {"en": "tableref", "ja": "tableref"},
    "tagline": {"en": "Table referee for dice and card games", "ja": "ダイスとカードのゲームの審判"},
    "tables": {"en": "Tables", "ja": "テーブル一覧"},
    "no_tables": {"en": "No tables yet.", "ja": "テーブルはまだありません。"},
    "new_table": {"en": "New table", "ja": "新しいテーブル"},
    "game": {"en": "Game", "ja": "ゲーム"},
    "players": {"en": "Players (in seat order, clockwise)", "ja": "プレイヤー（時計回りの席順）"},
    "player": {"en": "Player", "ja": "プレイヤー"},
    "add_player": {"en": "Add player", "ja": "プレイヤーを追加"},
    "remove": {"en": "Remove", "ja": "削除"},
    "options": {"en": "Options", "ja": "オプション"},
    "create": {"en": "Create table", "ja": "テーブルを作成"},
    "import": {"en": "Import a game log", "ja": "ゲーム記録を読み込む"},
    "import_button": {"en": "Import", "ja": "読み込む"},
    "import_choose": {"en": "Choose a file…", "ja": "ファイルを選ぶ…"},
    "import_none": {"en": "No file chosen", "ja": "ファイル未選択"},
    "open": {"en": "Open", "ja": "開く"},
    "events": {"en": "events", "ja": "イベント"},
    "camera": {"en": "Camera", "ja": "カメラ"},
    "online": {"en": "online", "ja": "オンライン"},
    "offline": {"en": "offline", "ja": "オフライン"},
    "live": {"en": "Live", "ja": "ライブ"},
    "actions": {"en": "Your move", "ja": "操作"},
    "turn": {"en": "Turn", "ja": "手番"},
    "send": {"en": "Send", "ja": "送信"},
    "reveal": {"en": "Read the table", "ja": "テーブルを読み取る"},
    "reread": {"en": "Re-read", "ja": "読み直す"},
    "discard_camera": {"en": "Read the four cards", "ja": "4枚をカメラで読み取る"},
    "discard_camera_pick": {"en": "Choose who discards first", "ja": "先に捨てる人を選んでください"},
    "discard_camera_wait": {"en": "Reading the four cards laid face up…", "ja": "表向きの4枚を読み取っています…"},
    "discard_camera_done": {"en": "Discarded:", "ja": "捨てました:"},
    "reread_prompt": {"en": "The reading does not add up — re-read or correct it.", "ja": "読み取り結果が合いません。読み直すか、修正してください。"},
    "manual": {"en": "Enter by hand", "ja": "手で入力"},
    "manual_help": {"en": "Tap faces to add them; tap an added one to remove it.", "ja": "目をタップして追加、追加したものをタップで削除。"},
    "colour": {"en": "Colour", "ja": "色"},
    "clear": {"en": "Clear", "ja": "クリア"},
    "verdict": {"en": "Verdict", "ja": "判定"},
    "correct_help": {"en": "Tap a die or card on the photo to correct it; tap empty space to add one.",
                     "ja": "写真のダイスやカードをタップして修正。空いた所をタップで追加。"},
    "correct": {"en": "Correct", "ja": "修正"},
    "delete_object": {"en": "Delete", "ja": "削除"},
    "cancel": {"en": "Cancel", "ja": "キャンセル"},
    "who": {"en": "Corrected by", "ja": "修正者"},
    "corrections": {"en": "Corrections", "ja": "修正履歴"},
    "undo": {"en": "Undo", "ja": "取り消し"},
    "score": {"en": "Score", "ja": "スコア"},
    "history": {"en": "History", "ja": "履歴"},
    "odds": {"en": "Show odds", "ja": "確率を表示"},
    "odds_dice": {"en": "My dice (optional)", "ja": "自分のダイス（任意）"},
    "odds_standing": {"en": "Chance the standing bid is true", "ja": "現在の推測が正しい確率"},
    "unseen": {"en": "unseen dice", "ja": "見えないダイス"},
    "invite": {"en": "Invite players", "ja": "プレイヤーを招待"},
    "invite_help": {"en": "Scan to join this table from a phone on the same network.",
                    "ja": "同じネットワークのスマホでスキャンして参加。"},
    "invite_local": {"en": "This server listens only on this computer. Start it with --host 0.0.0.0 to let phones join.",
                     "ja": "このサーバーはこのコンピューター内だけで待ち受けています。スマホから参加するには --host 0.0.0.0 で起動してください。"},
    "export": {"en": "Export log", "ja": "記録を書き出す"},
    "winner": {"en": "Winner", "ja": "勝者"},
    "loser": {"en": "Loser", "ja": "敗者"},
    "game_over": {"en": "Game over", "ja": "ゲーム終了"},
    "draw": {"en": "Draw", "ja": "引き分け"},
    "waiting_reading": {"en": "Waiting for the table to be read", "ja": "テーブルの読み取り待ち"},
    "no_actions": {"en": "Nothing to decide now.", "ja": "今は操作はありません。"},
    "token_missing": {"en": "View only: open the join link (QR code) to play.", "ja": "閲覧のみ: 参加リンク（QRコード）から開くと操作できます。"},
    "language": {"en": "日本語", "ja": "English"},
    "home": {"en": "All tables", "ja": "テーブル一覧へ"},
    "api": {"en": "API (OpenAPI)", "ja": "API（OpenAPI）"},
    "connection_lost": {"en": "Connection lost — reconnecting…", "ja": "接続が切れました。再接続中…"},
    "stake": {"en": "Stake", "ja": "賭け金"},
    "guess": {"en": "Guess", "ja": "予想"},
    "feasible": {"en": "Sums the dice can show", "ja": "出うる合計"},
    "pile": {"en": "Pile", "ja": "場の枚数"},
    "rank": {"en": "Rank", "ja": "ランク"},
    "bid": {"en": "Standing bid", "ja": "現在の推測"},
    "best": {"en": "Best hand", "ja": "最強の役"},
    "status_verdict": {"en": "verdict", "ja": "判定済み"},
    "status_reread": {"en": "re-read", "ja": "要再読取"},
    "status_withdrawn": {"en": "withdrawn", "ja": "取消済み"},
    "status_stale": {"en": "old", "ja": "過去"},
    "readings": {"en": "Readings", "ja": "読み取り"},
    "camera_none": {"en": "No camera: enter readings by hand.", "ja": "カメラなし: 手で入力してください。"},
    "health": {"en": "Server status", "ja": "サーバーの状態"},
    # The live video's caption (the picture itself carries no words, so every language reads it).
    "live_connecting": {"en": "Connecting to the camera…", "ja": "カメラに接続中…"},
    "live_offline": {"en": "Camera offline", "ja": "カメラがオフラインです"},
    "live_retry": {"en": "retrying in {s} s", "ja": "{s}秒後に再接続"},
    "live_first": {"en": "Reading the first frame…", "ja": "最初の映像を読み取り中…"},
    "live_empty": {"en": "Nothing on the table", "ja": "テーブルに何もありません"},
    "live_moving": {"en": "Moving — hold still", "ja": "動いています。止まるまで待ってください"},
    "live_steady": {"en": "Still {p}%", "ja": "静止 {p}%"},
    "live_settled": {"en": "Still: {n} read", "ja": "静止: {n}個を読み取り"},
    "live_still": {"en": "Still", "ja": "静止"},
    "live_settled_unsure": {"en": "Still: {n} read, some unsure", "ja": "静止: {n}個を読み取り（不確かなものあり）"},
    # Bid quantities above the dice in play: on the board, but never true.
    "over_dice": {"en": "More than the {n} dice in play: this bid cannot be true",
                  "ja": "場のダイス{n}個より多い推測です（必ず外れます）"},
    "over_dice_note": {"en": "Dimmed: more than the {n} dice in play.", "ja": "薄い数字: 場のダイス{n}個より多い数。"},
    # New-table options (README's options table): a name and a line each.
    "opt_start_rule": {"en": "Who opens", "ja": "最初の手番の決め方"},
    "opt_start_rule_en": {"en": "Everyone rolls 5: most wheels, then highest total (English rules)",
                          "ja": "全員5個振る: 舵が最多、次に合計が最大（英語版ルール）"},
    "opt_start_rule_ja": {"en": "Everyone rolls 2: highest sum, a wheel counts 1 (Japanese rules)",
                          "ja": "全員2個振る: 合計が最大、舵は1（日本語版ルール）"},
    "opt_start_rule_help": {"en": "Ties roll again.", "ja": "同点は振り直し。"},
    "opt_deck": {"en": "Deck", "ja": "デッキ"},
    "opt_deck_auto": {"en": "By the number of players", "ja": "人数で決める"},
    "opt_deck_36": {"en": "36 cards (A, 6-K)", "ja": "36枚（A、6-K）"},
    "opt_deck_52": {"en": "52 cards", "ja": "52枚"},
    "opt_deck_help": {"en": "Only 3 players choose (52 if not): 2 players always use 36 cards, 4-5 always 52.",
                      "ja": "選べるのは3人のときだけ（指定なしは52枚）。2人は常に36枚、4-5人は常に52枚。"},
    "opt_none": {"en": "No options: a roll of 10 dice means the green expansion die is in play.",
                 "ja": "オプションはありません。10個のロールは緑の拡張ダイスありの意味です。"},
    "opt_stake_cap": {"en": "Stake limit", "ja": "賭け金の上限"},
    "opt_stake_cap_help": {"en": "The most one stake may be, a multiple of 1000; empty: up to the player's cash.",
                           "ja": "1回に賭けられる最大額（1000の倍数）。空欄なら手持ちまで。"},
    "opt_to_hell": {"en": "Play to the end", "ja": "破産するまで続ける"},
    "opt_to_hell_help": {"en": "No limit of 5 parent turns each: play until someone is bankrupt.",
                         "ja": "親は各5回の制限なし。誰かが破産するまで遊びます。"},
    "opt_counterfeit": {"en": "Counterfeit notes", "ja": "偽札あり"},
    "opt_counterfeit_help": {"en": "Any payment may be accused of holding a fake note.",
                             "ja": "支払いのたびに偽札を告発できます。"},
    # Nine Dice shouts: one line per shout (web/shouts.py fills the fields).
    "shout_absent": {"en": "not on the table", "ja": "場にありません"},
    "shout_weaker": {"en": "on the table, but not the best", "ja": "場にありますが最強ではありません"},
    "shout_sep": {"en": "; ", "ja": "。"},
    "shout_returns": {"en": "{player} returns a {token} token.", "ja": "{player}は{token}のトークンを1つ返します。"},
    "shout_returns_nothing": {"en": "{player} has no token to return.", "ja": "{player}に返すトークンはありません。"},
    "shout_right": {"en": "right! {rest}", "ja": "正解！{rest}"},
    "shout_takes": {"en": "{player} takes {tokens}.", "ja": "{player}が{tokens}を受け取ります。"},
    "shout_takes_nothing": {"en": "{player} already holds the scarab.", "ja": "{player}はすでにスカラベを持っています。"},
    "shout_wins_game": {"en": "ブラフプラスベガス wins the game!", "ja": "ブラフプラスベガスでゲームに勝利！"},
    "shout_token_from": {"en": "{tokens} (from {player})", "ja": "{tokens}（{player}から）"},
    "shout_title": {"en": "Shouts", "ja": "宣言"},
    "shout_help": {"en": "Shout aloud first. Then tap who shouted and the hand, in the order heard.",
                   "ja": "まず声に出して宣言。聞こえた順に、宣言した人と役をタップします。"},
    "shout_who": {"en": "Who shouted?", "ja": "誰が宣言しましたか？"},
    "shout_hand": {"en": "Which hand?", "ja": "どの役ですか？"},
    "shout_me": {"en": "This phone is", "ja": "このスマホの持ち主"},
    "shout_me_none": {"en": "— the table (any player) —", "ja": "— テーブル（全員）—"},
    "shout_buzz": {"en": "Shout!", "ja": "宣言！"},
    "shout_buzz_help": {"en": "Tap as you shout, then tap the hand.", "ja": "声に出すと同時にタップし、次に役をタップ。"},
    "shout_cancel": {"en": "Cancel", "ja": "やめる"},
    "shout_buzzed": {"en": "Shouted first, the hand still to come: {players}", "ja": "先に宣言、役の入力待ち: {players}"},
    "shout_colour": {"en": "{player}'s {hand} is right! Which token does {player} take?",
                     "ja": "{player}の{hand}は正解！どの色のトークンを受け取りますか？"},
    "round_open": {"en": "Round {n}: dice read — shout the best hand!", "ja": "ラウンド{n}: ダイスを読み取りました。最強の役を宣言！"},
    "round_shouted": {"en": "Shouted", "ja": "宣言済み"},
    "round_waiting": {"en": "Still to shout", "ja": "未宣言"},
    "round_won": {"en": "Round {n}: {player} wins with {hand}.", "ja": "ラウンド{n}: {player}が{hand}で勝ち。"},
    "round_void": {"en": "Round {n} ended with no winner.", "ja": "ラウンド{n}は勝者なしで終了。"},
    "round_roll": {"en": "Roll the dice, then read the table.", "ja": "ダイスを振って、テーブルを読み取ります。"},
    "round_target": {"en": "Goal: {n} tokens of every colour (the scarab counts as 3 of one).",
                     "ja": "目標: 全色{n}個ずつ（スカラベは1色の3個分）。"},
    "dice_read_open": {"en": "{n} dice read. The best hands are shown when the round ends.",
                       "ja": "ダイス{n}個を読み取りました。最強の役はラウンド終了後に表示します。"},
    "best_hands": {"en": "Best hands on the table (tap one to outline its dice)",
                   "ja": "場の最強の役（タップでダイスを囲みます）"},
    "reread_or_correct": {"en": "Re-read, or tap a die or card on the photo to correct it.",
                          "ja": "読み直すか、写真のダイスやカードをタップして修正してください。"},
}

STRINGS.update(TEACH_STRINGS)

#: Token names in the shout lines (web/shouts.py).
TOKEN_NAMES: dict[str, dict[str, str]] = {
    "white": {"en": "white", "ja": "白"},
    "black": {"en": "black", "ja": "黒"},
    "blue": {"en": "blue", "ja": "青"},
    "scarab": {"en": "scarab", "ja": "スカラベ"},
}

#: Names of fields and event types on the action controls.
FIELD_NAMES: dict[str, dict[str, str]] = {
    "type": {"en": "Action", "ja": "操作"},
    "player": {"en": "Player", "ja": "プレイヤー"},
    "quantity": {"en": "Quantity", "ja": "個数"},
    "face": {"en": "Face", "ja": "目"},
    "opener": {"en": "Opener", "ja": "最初の手番"},
    "dealer": {"en": "Dealer", "ja": "ディーラー"},
    "hand": {"en": "Hand", "ja": "役"},
    "colour": {"en": "Colour", "ja": "色"},
    "count": {"en": "Count", "ja": "数"},
    "count_cards": {"en": "Cards", "ja": "枚数"},
    "count_dice": {"en": "Dice", "ja": "個数"},
    "rank": {"en": "Rank", "ja": "ランク"},
    "amount": {"en": "Stake", "ja": "賭け金"},
    "guess": {"en": "Guess", "ja": "予想"},
    "fake": {"en": "Fake found", "ja": "偽札あり"},
    "bid": {"en": "Bid", "ja": "推測"},
    "challenge": {"en": "Challenge!", "ja": "チャレンジ！"},
    "start": {"en": "Start", "ja": "開始"},
    "shout": {"en": "Shout", "ja": "宣言"},
    "end_round": {"en": "Nobody else shouts", "ja": "宣言終了"},
    "deal": {"en": "Deal", "ja": "配る"},
    "roll": {"en": "Roll", "ja": "ロール"},
    "reveal": {"en": "Reveal", "ja": "公開"},
    "rolls": {"en": "Rolls", "ja": "ロール"},
    "dice": {"en": "Dice", "ja": "ダイス"},
    "cards": {"en": "Cards", "ja": "カード"},
    "discard": {"en": "Discard four of a kind", "ja": "4枚組を捨てる"},
    "play": {"en": "Play cards", "ja": "カードを出す"},
    "declare": {"en": "Declare", "ja": "宣言"},
    "stake": {"en": "Stake", "ja": "賭ける"},
    "accuse": {"en": "Accuse (counterfeit)", "ja": "偽札を告発"},
    "white": {"en": "white", "ja": "白"},
    "black": {"en": "black", "ja": "黒"},
    "blue": {"en": "blue", "ja": "青"},
    "green": {"en": "green", "ja": "緑"},
    "wheel": {"en": "wheel", "ja": "舵"},
    "true": {"en": "yes", "ja": "はい"},
    "false": {"en": "no", "ja": "いいえ"},
}


def text(key: str, lang: str) -> str:
    entry = STRINGS.get(key) or FIELD_NAMES.get(key)
    if entry is None:
        return key
    return entry.get(lang) or entry["en"]


def bundle(lang: str) -> dict[str, Any]:
    """Everything the page scripts need, in both languages (a page switches without reloading)."""
    return {"lang": lang, "strings": STRINGS, "fields": FIELD_NAMES, "games": GAME_NAMES}


def pick_language(arg: str | None, cookie: str | None, accept: Any) -> str:
    for candidate in (arg, cookie):
        if candidate in LANGUAGES:
            return str(candidate)
    best = accept.best_match(LANGUAGES) if accept is not None else None
    return best or "en"
