"""Presets: named bundles of guards and options, as data.

A preset answers "what would X have done on my traces?": it selects the guards a
system runs and sets their options the way that system sets them. It is the base of
the settings: the config file and the command line change it from there (a config
file names one with ``preset = "NAME"``; ``--preset NAME`` on the command line wins).

The seeds' guards as shipped (``seeds``, the default before there was one) and each
seed's system; the loop detectors of OpenHands, Gemini CLI, Cline, Roo Code, Goose,
CrewAI, OpenRouter's agent SDK, Hermes Agent and OpenClaw, as far as replay can express them (each
preset's notes say where it cannot); and ``default``, tracecheck's recommendation, which
runs when nothing is chosen. Facts about each system are from ``reference/peers.md``;
``tests/test_conformance_*.py`` replay each system's own test scenarios.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..guards.signals import DEFAULT_FAILURE_PATTERNS, SEED_ANSWER_INDICATORS
from ..guards.tool_kinds import EDIT_TOOLS, SEED_004_TIME_LIMITS, SHELL_TOOLS

# Budget guards are off until given a budget: a preset that lists them lets --set turn them on.
BUDGETS = ("B001", "B002", "B003", "B004")


@frozen_dataclass
class Preset:
    name: str
    summary: str  # one line: what it runs
    source: str  # where its guards and settings come from
    guards: dict[str, dict[str, Any]] = field(default_factory=dict)  # code -> options
    notes: str = ""  # why the settings are what they are
    # code -> why the guard is on, and where it hints and where it stops (tracecheck preset NAME)
    reasons: dict[str, str] = field(default_factory=dict)


# Hermes Agent's tool lists (agent/tool_guardrails.py): tools whose success is a change
# landed (an edit, a click, a command run), pollers whose unchanged answer is waiting,
# tools whose failure is normal work output, and the read-only (idempotent) tools.
HERMES_PROGRESS_TOOLS = (
    "write_file", "patch", "terminal", "execute_code", "browser_click", "browser_type", "browser_press",
    "browser_navigate", "process_manage", "process", "delegate_task", "send_message", "cronjob",
    "cronjob_manage", "todo", "todo_list", "memory", "skill_manage",
)
HERMES_POLLERS = ("process_manage", "*_get_result", "*_poll")
HERMES_FAILURE_TOLERANT = ("terminal", "execute_code", "process_manage", "process", "browser_navigate", "web_extract")
HERMES_READ_ONLY = (
    "read_file", "search_files", "web_search", "web_extract", "session_search", "skill_view", "skills_list",
    "browser_snapshot", "browser_console", "browser_get_images", "mcp_filesystem_read_file",
    "mcp_filesystem_read_text_file", "mcp_filesystem_read_multiple_files", "mcp_filesystem_list_directory",
    "mcp_filesystem_list_directory_with_sizes", "mcp_filesystem_directory_tree", "mcp_filesystem_get_file_info",
    "mcp_filesystem_search_files",
)
# Hermes' other two counters, each a second configuration of a guard the preset
# already runs (one instance per code): replay them with these --set assignments.
HERMES_SAME_TOOL_SETS = (
    "F001.same_call=false", "F001.threshold=8", "F001.hint_at=3", "F001.fire_on=failure",
    "F001.exempt_tools=" + ",".join(HERMES_FAILURE_TOLERANT),
)
HERMES_READ_ONLY_SETS = (
    "P004.tools=" + ",".join(HERMES_READ_ONLY), "P004.hint_at=2", "P004.fire_on=next_call",
)
# Where a format has no error flag, Hermes calls a result failed when its first 500
# characters hold a quoted "error" or "failed" (a JSON key or value), or a terminal
# result reports a non-zero exit code.
HERMES_FAILURE_PATTERNS = (
    r'^[\s\S]{0,492}"(?i:error|failed)"',
    r'"exit_code"\s*:\s*-?[1-9]',
)

HERMES_NOTES = (
    "Hermes' controller resets every counter at each turn: every guard has scope turn. Hard stops are modelled on, as "
    "Hermes sets them for unattended platforms (gateway, cron); interactive platforms only warn, i.e. only the hints "
    "of this preset. "
    "F001 is the exact-failure counter: the same call (tool + sorted-key JSON arguments) failing is hinted from the "
    "2nd failure and the next identical call after the 5th is refused before it runs (fire_on next_call). Hermes "
    "blocks that call and halts the turn with a controlled final response; tracecheck says stop (its saving counts "
    "one forced answer, where Hermes writes the halt message without a model call). A successful call of a "
    "progress tool (reset_on: write_file, patch, terminal, browser_click ...) makes every later retry a new "
    "experiment; Hermes also counts a file mutation that landed through another tool, which replay cannot see. "
    "Hermes' second failure counter (the same tool failing with any arguments: hint from 3, halt at 8, never for "
    "the failure-tolerant tools) needs a second F001, and tracecheck runs one guard per code: replay it with --set "
    + " --set ".join(HERMES_SAME_TOOL_SETS) + ". "
    "Failures are the format's error flag; where there is none, the default patterns plus Hermes' own: a quoted "
    "\"error\" or \"failed\" in the first 500 characters, or a non-zero exit_code (Hermes reads that only for "
    "terminal, and then ignores the rest; here it applies to every tool). "
    "P004 is the identical (tool, arguments, result) streak of any tool: a notice from the 3rd in a row, a halt "
    "after the 5th; pollers (process_manage, *_get_result, *_poll) are never flagged but still break a streak. "
    "Results are compared as text with runs of whitespace collapsed; Hermes hashes them, and a multimodal result "
    "never forms a streak there. Hermes' read-only no-progress counter (its read-only tools answered the same way: "
    "warn at 2, refuse the next call after 5) is P004 again: replay it with --set "
    + " --set ".join(HERMES_READ_ONLY_SETS) + "; P004 counts only repeats in a row, where Hermes counts a "
    "signature's repeats whatever runs in between. "
    "R003 is the cycle detector: periods 2-4, results compared, 5 laps. Hermes halts after the call that completes "
    "the 5th lap once its result matched; R003 stops before that call, one call earlier. Hermes also adds a notice "
    "at 3 laps (R003 has no hint), ignores a cycle made only of pollers, and never reports a run of one repeated "
    "call as a cycle (R003 with min_period 2 does, as period 2, after 10 calls; P004 stops such a run at 5 first). "
    "B003 caps web_search at 50 calls per turn; Hermes refuses the 51st and halts the turn, whether hard stops are "
    "on or not. Its cap of 50 subagents per turn counts spawned subagents, not calls, and would need a second "
    "B003: left out. Not modelled: duplicate results replaced by a reference stub (replay does not rewrite "
    "results), and hashed signatures that keep secrets out of reports (tracecheck shows argument text)."
)

# OpenClaw's tool-loop detection, as read in openclaw/openclaw: src/agents/tool-loop-detection.ts
# @ 00655306 (the revision reference/peers.md records), its tests @ 0410b692 and @ 58db2f91 (the
# first version, thresholds configurable), and the hook that acts on it,
# src/agents/agent-tools.before-tool-call.ts @ 000135d6 (pi-tools.before-tool-call.ts before).
OPENCLAW_POLL_TOOLS = ("command_status", "process.action=poll", "process.action=log")
# OpenClaw's first version (58db2f91): a generic repeat is only warned, no unknown-tool
# detector, one history per session.
OPENCLAW_FIRST_SETS = ("R007.generic_critical=false", "R007.unknown_tool_at=0", "R007.scope=run")

OPENCLAW_NOTES = (
    "OpenClaw keeps the last 30 tool calls (historySize) of an agent run (a new message starts one: scope turn) "
    "and judges each call before it runs, against the calls before it. A call is its tool name + the SHA-256 of "
    "its arguments as sorted-key JSON (update_plan's arguments reduced to their statuses); an outcome is the hash "
    "of the result's structured details and its text, trimmed, or of the error message (exec by status, exit "
    "code and output; a message send without its ids and timestamps). tracecheck compares the same things as "
    "text: tool + sorted-key JSON, and error-or-not + the result text, trimmed (a transcript has no structured "
    "details). The no-progress count of a call: its signature's earlier calls that have a result, counted back "
    "while the outcome stays the same, other calls skipped. Detectors, first match wins: unknown tool, 10 calls "
    "in a row of the tool each failing with 'unknown tool X' / 'tool X not found' (unknownToolThreshold): "
    "critical; the global circuit breaker, any tool, a no-progress count of 30 (globalCircuitBreakerThreshold): "
    "critical; known poll without progress, only command_status and process with action poll or log: 20 "
    "(criticalThreshold) critical, 10 (warningThreshold) warning; ping-pong, the call continues an alternation "
    "of two signatures, length with the call 20 and each side's outcomes unchanged: critical, 10: warning; "
    "generic repeat, not a poll tool: a no-progress count of 20 critical, 10 calls with the same signature "
    "anywhere in the history: warning. The thresholds are constants (the config only switches the feature on). "
    "Critical and the breaker are the same to the agent: the before-tool-call hook refuses that one call (a "
    "'tool-loop' veto; the model reads the detector's message as the call's result) and the run goes on; the "
    "refused call never enters the history, so the same call stays refused. Hence block for both, not stop. A "
    "warning is only logged (and emitted as a diagnostic event) once per pattern at each multiple of 10 of its "
    "count; it does not reach the model: tracecheck reports it as a hint, which saves nothing. Counting is per "
    "call: a round's calls are judged in order, the earlier calls of the same response in the history without "
    "their results yet (OpenClaw running them in parallel; run one after another, their results would be in). "
    "Not modelled: exec results that say a command is still running (OpenClaw compares only their status and "
    "output tail, which a transcript does not carry apart from the text); update_plan's reduction; the "
    "argument-churn count some revisions add to the breaker; the run ended after 3 refused calls in a row that "
    "never ran (a newer hook). OpenClaw's first version (configurable thresholds, a generic loop only warned and "
    "left to the breaker at 30, no unknown-tool detector, one history per session): --set "
    + " --set ".join(OPENCLAW_FIRST_SETS) + ". Conformance: tests/test_conformance_openclaw.py."
)


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="seeds",
            summary="the seeds' guards as the articles ship them: P001 P002 P003 R001 R002 F001 E001, budgets off until set",
            source="seeds 000-004 (the guards with their own defaults)",
            guards={code: {} for code in ("P001", "P002", "P003", "R001", "R002", "F001", "E001", *BUDGETS)},
            notes="What tracecheck ran before it had a default preset. On real runs R002 answers re-runs after an edit "
            "from its cache (stale), P003 calls empty results from different queries 'no new information' and F001 "
            "aborts a run whose agent was about to fix its arguments: see the default preset.",
        ),
        Preset(
            name="seed-000",
            summary="query-fingerprint circuit breaker: similar searches twice in a row stop before the tools",
            source="seed 000 (a no-progress circuit breaker for ReAct)",
            guards={"P001": {"containment": 0.8, "threshold": 2, "tokenizer": "char", "metric": "containment"}},
            notes="The MVP the article ships: fingerprints plus a forced answer. Its v2 (URL overlap) is P002, "
            "not part of the MVP.",
        ),
        Preset(
            name="seed-002",
            summary="information-gain gate: two search observations in a row over 0.7 similar to what was seen, "
            "5 observations, or one holding an answer indicator stop the run",
            source="seed 002 (plan B, a search tool called eight times)",
            guards={
                "P003": {
                    "similarity": 0.7,
                    "threshold": 2,
                    "metric": "difflib",
                    "max_observations": 5,
                    "stop_on_answer": True,
                    "answer_indicators": list(SEED_ANSWER_INDICATORS),
                }
            },
            notes="The three conditions of the article's should_terminate, in its order: information stagnation "
            "(difflib's ratio as the article writes it; the fast n-gram measure gives the same numbers), "
            "len(accumulated_results) >= 5, and an observation holding one of its answer indicators (its Chinese "
            "list as written; P003's default list adds English equivalents).",
        ),
        Preset(
            name="loopagent",
            summary="LoopAgent's guardrails: identical calls answered from cache, 3 failures of a tool abort, evidence before "
            "answers, writes beside parallel calls reported",
            source="seed 001 (LoopAgent's reactAgentRunner.ts)",
            guards={
                "R002": {"canonical_args": False},
                "F001": {"threshold": 3},
                "E001": {"max_rejections": 2},
                "R006": {},
            },
            notes="Signatures are name + raw arguments text, as LoopAgent keys its cache. The evidence gate "
            "needs required tools in the run's metadata (required_tools / required_any_of). LoopAgent runs a call that "
            "writes in a batch of its own; replay cannot re-batch recorded calls, so R006 only reports (a hint, nothing "
            "saved) each response that asked for a write beside other calls.",
        ),
        Preset(
            name="patchcat",
            summary="PatchCat's deadlock breaker: 2nd identical call hints, 3rd stops; raw argument text compared; "
            "sandbox calls cut at 5 s, network calls at 30 s",
            source="seed 004 (PatchCat browser-engine.ts)",
            guards={
                "R001": {"canonical_args": False, "hint_at": 2, "stop_at": 3},
                "B002": {"budget": 0},
                "B005": {"limits": list(SEED_004_TIME_LIMITS), "default_limit": 0.0},
            },
            notes="PatchCat compares the arguments string as the model wrote it (key-order drift escapes it, as the "
            "article says); its token budget is 0 (off) by default. Its single-step watchdog (B005) kills a code "
            "sandbox after 5 s and aborts a network call after 30 s; other tools are unbounded. Tool kinds are "
            "told by name: " + ", ".join(SEED_004_TIME_LIMITS) + ". A cut is reported (hint), with its saved seconds "
            "counted only where the recorded result was an error or a timeout.",
        ),
        Preset(
            name="openhands",
            summary="OpenHands' StuckDetector: same action and observation 4 times, same action answered by an error 3 times, "
            "the same message 3 times, an A-B-A-B-A-B pattern",
            source="OpenHands V0 StuckDetector (openhands/controller/stuck.py), interactive mode",
            guards={
                "P004": {"threshold": 4, "scope": "turn"},
                "F002": {
                    "threshold": 3,
                    "same_call": True,
                    "compare_error_text": False,
                    "consecutive": True,
                    "action": "abort",
                    "scope": "turn",
                },
                "T001": {"threshold": 3, "scope": "turn", "action": "abort"},
                "R003": {
                    "min_period": 2,
                    "max_period": 2,
                    "laps": 3,
                    "compare_results": True,
                    "wait_for_result": True,
                    "scope": "turn",
                },
            },
            notes="Interactive mode looks at the events after the last user message, hence scope turn (headless mode "
            "is scope run for all four guards). OpenHands raises AgentStuckInLoopError, an abort; F002 and T001 abort, "
            "P004 and R003 can only stop, so their savings include one forced answer OpenHands would not give. The A-B pattern "
            "waits for the 6th observation (R003 wait_for_result). Not reproduced: its action equality compares the "
            "model's thought text and, for shell commands, only command + exit code (tracecheck compares calls and "
            "result text); the SyntaxError sub-cases (stuck at the 3rd identical Jupyter SyntaxError; here the 4th "
            "identical result); an agent message between repeated actions (an action to OpenHands, it breaks "
            "the window; P004 and R003 do not see it); context-window condensation loops; delegates. Conformance: "
            "tests/test_conformance_openhands.py.",
        ),
        Preset(
            name="gemini-cli",
            summary="Gemini CLI's LoopDetectionService: a block of 1-5 calls repeated 5 times, 50-character text chanted 10 times",
            source="Gemini CLI packages/core/src/services/loopDetectionService.ts",
            guards={
                "R003": {"min_period": 1, "max_period": 5, "laps": 5, "compare_results": False, "scope": "turn"},
                "T002": {"chunk": 50, "threshold": 10, "markdown_breaks": True, "scope": "turn"},
            },
            notes="Both detectors reset when a new user prompt starts (scope turn); T002 also starts afresh at list "
            "items, headings, blockquotes and table rows (markdown_breaks), as Gemini does. Gemini keys calls by "
            "JSON.stringify of the arguments, so key order matters there; tracecheck's R003 compares sorted-key "
            "JSON. Not reproduced: strike management (the first detection injects feedback and allows one recovery, "
            "the second halts; replay stops the turn at the first), disabling for the session, stopping mid-stream "
            "(a round's text is checked whole), and the third detector, an LLM judge, which has no offline "
            "equivalent. Conformance: tests/test_conformance_gemini_cli.py.",
        ),
        Preset(
            name="cline",
            summary="Cline's repeated-call detection: the 3rd identical call in a row gets a warning, the 5th ends the turn; "
            "task_progress ignored",
            source="Cline src/core/task/loop-detection.ts + ToolExecutor.ts (extension), sdk/.../safety/loop-detection.ts (SDK)",
            guards={
                "R001": {
                    "hint_at": 3,
                    "stop_at": 5,
                    "stop_action": "stop",
                    "phase": "after_tools",
                    "ignore_fields": ["task_progress"],
                    "canonical_args": True,
                    "scope": "turn",
                }
            },
            notes="Cline counts a call after it ran and its result is in: the warning after the 3rd identical call "
            "and the escalation after the 5th reach the model with the next request, hence phase after_tools (the "
            "5th call is not saved). Signatures are sorted-key JSON without task_progress, the checklist that "
            "changes on every call. At the 5th the extension raises its mistake count to the limit and asks the user "
            "(mistake_limit_reached), who may continue with feedback; the count restarts then. That is replayed as a "
            "stop that ends the turn with scope turn (the user's reply opens the next one); a stop's saving assumes "
            "one forced answer Cline does not give. The SDK's default and the extension's YOLO mode end the session "
            "instead: --set R001.stop_action=abort. Here any new user message restarts the count; in Cline only the "
            "reply to that ask does. Cline's consecutive-mistake tracker (extension 3, SDK 6) is left out: it "
            "counts all tools together, invalid calls and API errors too, and asks or stops at its limit, while "
            "F001 counts the failures of each tool separately and aborts, so F001 would fire elsewhere.",
        ),
        Preset(
            name="roo",
            summary="Roo Code's ToolRepetitionDetector: 3 identical calls in a row allowed, the 4th refused with an error "
            "result, then the count starts over",
            source="Roo Code src/core/tools/ToolRepetitionDetector.ts (limit = consecutiveMistakeLimit, default 3)",
            guards={
                "R001": {
                    "hint_at": 0,
                    "stop_at": 4,
                    "stop_action": "block",
                    "reset_after_block": True,
                    "block_message": "Tool call repetition limit reached for {tool}. Please try a different approach.",
                    "canonical_args": True,
                    "scope": "run",
                }
            },
            notes="Roo allows limit (3) identical consecutive calls and refuses the next, so stop_at is limit + 1 = 4; "
            "the refused call gets Roo's error text as its result, and both counters reset, so 4 more identical "
            "calls are needed for the next block (reset_after_block). No hint: Roo gives none before the block. "
            "Signatures are sorted-key JSON (safe-stable-stringify of name and parameters). Roo also asks the user "
            "at a block (mistake_limit_reached); replay cannot know the answer and goes on with the recorded "
            "rounds. The detector lives on the task, so a new user message does not reset it (scope run). A limit "
            "of 0 (unlimited) is R001.stop_at=0. Roo's consecutive-mistake limit (3) is left out: it counts "
            "invalid parameters, failures of any tool and answers without a tool call together, a success of any "
            "tool resets it, and it asks the user; F001 counts each tool's failures separately and aborts.",
        ),
        Preset(
            name="goose",
            summary="Goose's RepetitionInspector: the 4th identical call in a row denied (with --max-tool-repetitions 3); "
            "one tool failing 3 times with the same error stops",
            source="Goose crates/goose/src/tool_monitor.rs (REP-001, REP-002)",
            guards={
                "R001": {
                    "hint_at": 0,
                    "stop_at": 4,
                    "stop_action": "block",
                    "reset_after_block": False,
                    "block_message": "Tool '{tool}' has exceeded maximum repetitions",
                    "canonical_args": True,
                    "scope": "run",
                },
                "F002": {
                    "threshold": 3,
                    "error_chars": 100,
                    "compare_error_text": True,
                    "first_line_only": False,
                    "same_call": False,
                    "consecutive": True,
                    "action": "stop",
                    "scope": "run",
                },
            },
            notes="REP-001 has no default: --max-tool-repetitions N is unlimited unless set. This preset uses 3, the "
            "value of the fork whose test shows the intended semantics: N identical calls allowed, the (N+1)-th "
            "denied, so stop_at 4. Every further identical call is denied too (repeat_count keeps growing; no "
            "reset). Arguments are compared as JSON values, so key order does not matter. Upstream, REP-001 never "
            "fires: the agent builds the inspector without a limit and inspect() counts on a temporary copy of its "
            "state (issues #9758, #9136); for upstream behaviour use --set R001.enabled=false. REP-002 is F002: "
            "the first 100 characters of the error text, per tool, whatever the arguments, 3 in a row. Goose "
            "then denies the tool's next call and lets the model retry once it adapts; F002 can only stop (or "
            "abort), so it ends the run after the 3rd error's tools instead of refusing one later call. The state "
            "lives on the agent's session, hence scope run. The turn cap (GOOSE_MAX_TURNS, default 1000) is left "
            "out: what Goose does at it was not read.",
        ),
        Preset(
            name="crewai",
            summary="CrewAI: the 2nd identical tool call in a row is not run (a canned observation instead); "
            "max_iter 25 forces a final answer",
            source="crewAI lib/crewai/src/crewai/tools/tool_usage.py, utilities/agent_utils.py",
            guards={
                "R001": {
                    "hint_at": 0,
                    "stop_at": 2,
                    "stop_action": "block",
                    "reset_after_block": False,
                    "block_message": "I tried reusing the same input, I must stop using this action input. "
                    "I'll try something else instead.",
                    "canonical_args": True,
                },
                "B001": {"max_rounds": 25, "final_window": 0},
            },
            notes="CrewAI compares a call with the last tool use that ran (same tool name, equal argument dicts, "
            "so key order does not matter); a repeat is not run and gets the canned observation. A refused call "
            "does not become the last tool use, so a 3rd identical call is refused too (no reset). max_iter 25: "
            "once 25 model calls were made the next one is asked for the final answer without tools, which is "
            "B001's stop before the tools of round 26 (no evidence window: final_window 0). Scope stays turn: "
            "CrewAI keeps the last tool use per task execution and a new user message is the nearest thing to a "
            "new task. A tool's max_usage_count is per tool and unset by default, so it is left out.",
        ),
        Preset(
            name="hermes",
            summary="Hermes Agent's tool guardrails with hard stops on: the same call failing 5 times is refused its 6th try "
            "(hints from the 2nd), the same call answered the same way 5 times in a row halts (notices from the 3rd), "
            "a 2-4 call cycle with the same results 5 times halts, 50 web searches per turn",
            source="Hermes Agent agent/tool_guardrails.py (non-interactive: hard stop on)",
            guards={
                "F001": {
                    "threshold": 5,
                    "hint_at": 2,
                    "same_call": True,
                    "fire_on": "next_call",
                    "action": "stop",
                    "exempt_tools": [],
                    "reset_on": list(HERMES_PROGRESS_TOOLS),
                    "failure_patterns": [*DEFAULT_FAILURE_PATTERNS, *HERMES_FAILURE_PATTERNS],
                    "scope": "turn",
                },
                "P004": {
                    "threshold": 5,
                    "hint_at": 3,
                    "fire_on": "result",
                    "action": "stop",
                    "tools": [],
                    "exempt_tools": list(HERMES_POLLERS),
                    "scope": "turn",
                },
                "R003": {"min_period": 2, "max_period": 4, "laps": 5, "compare_results": True, "scope": "turn"},
                "B003": {"tools": ["web_search"], "max_calls": 50, "scope": "turn"},
            },
            notes=HERMES_NOTES,
        ),
        Preset(
            name="openrouter",
            summary="OpenRouter's DoomLoopMonitor: per tool, the same call in consecutive rounds of that tool "
            "(other tools in between ignored, fan-outs counted once) hints at 2, blocks at 3, stops at 6",
            source="OpenRouter @openrouter/agent DoomLoopMonitor (packages/agent/src/lib/doom-loop.ts)",
            guards={"R004": {"observe_at": 2, "block_at": 3, "stop_at": 6, "scope": "run"}},
            notes="Streaks survive a new user message (scope run): OpenRouter keeps them across turns, and "
            "across a serialize/resume. Its observe rung only emits a hook event; tracecheck reports it as a hint. The "
            "steer and escalate rungs are off by default there and not modelled. Tools' loopKey declarations "
            "are R004's key_fields (field lists; a loopKey function has no equivalent) and exempt_tools "
            "(loopKey false); the preset sets neither, as OpenRouter's tools declare none by default. Not "
            "modelled: its text detectors (a token block repeating at the tail of one response; identical "
            "assistant text in consecutive steps, which T001 cannot express because a round with tool calls "
            "ends T001's streak) and server-tool calls, which cannot be blocked there.",
        ),
        Preset(
            name="openclaw",
            summary="OpenClaw's tool-loop detection: over the last 30 calls of a run, warnings at 10 (same call, same poll "
            "answer, ping-pong), a call answered the same way 20 times or a stuck ping-pong refused, a missing tool "
            "refused after 10 tries, a circuit breaker at 30",
            source="OpenClaw src/agents/tool-loop-detection.ts + agent-tools.before-tool-call.ts (loopDetection enabled)",
            guards={
                "R007": {
                    "enabled": True,
                    "scope": "turn",
                    "history_size": 30,
                    "warning_at": 10,
                    "critical_at": 20,
                    "breaker_at": 30,
                    "critical_action": "block",
                    "breaker_action": "block",
                    "generic_repeat": True,
                    "generic_critical": True,
                    "unknown_tool_at": 10,
                    "poll_no_progress": True,
                    "ping_pong": True,
                    "poll_tools": list(OPENCLAW_POLL_TOOLS),
                    "warning_bucket": 10,
                }
            },
            notes=OPENCLAW_NOTES,
        ),
        Preset(
            name="default",
            summary="tracecheck's recommendation: stop loops that show no progress in their results, spare runs whose results change",
            source="tracecheck (tuned on the labelled real runs of tests/corpus/: Claude Code on Terminal-Bench, τ²-bench dialogues; and sample_traces/)",
            guards={
                "P001": {"containment": 0.8, "threshold": 2, "tokenizer": "char", "metric": "containment", "same_tool": True, "narrowing": True},
                "P002": {"threshold": 2},
                "P004": {"threshold": 3, "normalize_volatile": True, "poll_threshold": 10},
                "R003": {"min_period": 2, "max_period": 8, "laps": 3, "compare_results": True, "last_lap_start": True, "changes_by_signature": True},
                "R005": {"threshold": 3},
                "F001": {"threshold": 3, "action": "stop", "per_response": True, "exempt_tools": list(SHELL_TOOLS), "reset_on": list(EDIT_TOOLS)},
                "F003": {"threshold": 4, "noop_threshold": 3, "hint_at": 3, "by_target": True},
                "T001": {"threshold": 5, "hint_at": 2, "scope": "run", "similarity": 0.8, "tool_calls_break": False, "action": "abort"},
                "T002": {},
                "E001": {},
                **{code: {} for code in BUDGETS},
            },
            notes="Each choice answers a class of real failure in labelled real runs (README: the comparison table, per "
            "family). Repeats are judged by what a repeat can still change: the same answer again, the same change again, "
            "the same dead end under changing calls. Where a rule cannot tell a stall that recovers from a loop at the "
            "round it fires, it hints there and stops only if the stall goes on (the ladder of seed 004). Left out: F002 "
            "(F003 counts the same errors without counting parallel siblings) and P003 (it calls empty results from "
            "different queries 'no new information', and stopped a booking one search before its flight).",
            reasons={
                "P001": "Query rewrites (seed 000): stops before the 2nd search round in a row whose query is similar to an "
                "earlier one of the same tool (containment >= 0.8); no hint. same_tool: SWE-agent's search_dir, search_file "
                "and find_file ask different questions with the same words; narrowing: a query that adds a path or file "
                "name narrows the search to where to look, it does not reword it (both stopped resolved SWE-agent runs).",
                "P002": "Searches bringing back only pages seen before: stops at the 2nd such search round in a row.",
                "P004": "The same call answered the same way: stops at the 3rd identical pair (timestamps, ids, shell "
                "counters and process group ids normalised: Gemini CLI ends every shell result with another PGID); a poll "
                "(a call that sends nothing to a running process, waits or reads its output: Codex's write_stdin with "
                "empty chars, BashOutput, sleep && tail) at its 10th, since a silent build answers the same for minutes. "
                "A poll whose status changes, pagination and a re-run after an edit go on.",
                "R003": "Cycles (A, B, A, B): stops at the 3rd lap's first call of a 2-8 call cycle, only if the earlier "
                "laps' results repeat too; a re-applied edit matches by its call alone (its echo grows every time).",
                "R005": "The identical change made again: stops before the 3rd identical edit / write / str_replace in a "
                "row, whatever its results (SWE-agent's edit 1:1 echoes a longer file each time). A poll is not a change, "
                "however its tool is named (Codex's write_stdin with empty chars stopped two healthy sessions).",
                "F001": "A tool that keeps failing (seed 001): stops at its 3rd failed response in a row, no hint (parallel "
                "siblings count once; a successful edit resets; shells are exempt: a failing command is routine, F003 "
                "sees their dead ends). A call the user declined at a permission prompt neither counts nor resets. "
                "Codex's apply_patch 'verification failed' is a failure.",
                "F003": "The same dead end under changing calls: hints at the 3rd and stops at the 4th call that hits the "
                "same error class (prose run as a command is one class), the same empty answer or a view seen before, with "
                "nothing new between; a command that cannot do anything (the no-op ':') stops at its 3rd (it asks nothing: "
                "large-scale-text-editing leaked an '&&' tail that reset a count of 4). An answer that what was asked for "
                "is not there stops only when the same target is asked again (by_target; four different jar names not "
                "found cut a run that then succeeded): other targets are hinted.",
                "T001": "Canned replies: hints from the 2nd near-identical reply in a row (similarity 0.8) and ends the "
                "conversation at the 5th: a transfer notice repeated three or four times while the user refuses, then a "
                "booking when the user changes the request, gets a message, not a cut.",
                "T002": "A response chanting one stretch of text: stops it.",
                "E001": "Acts only on runs whose metadata names required tools (an answer without evidence).",
                **{code: "A budget: off until given one (--set)." for code in BUDGETS},
            },
        ),
    )
}


def preset_by_name(name: str) -> Preset | None:
    return PRESETS.get(name.strip().lower())
