// Package fakemodel is a fake of the two model APIs the AI coding agents
// call, for tests only: Anthropic's Messages API (Claude Code) and OpenAI's
// Responses API (Codex CLI), served by one local HTTP server, answering from
// a scenario file, keeping no state between requests but failure counts,
// and logging every request. The real agent CLIs run against it: the tests
// start `claude` and `codex` for real, with only the model faked (as
// internal/fakegh fakes only GitHub). Main is the `fakemodel` command test
// scripts use.
//
// # Scenario
//
//	{"rules": [{"match": "SUBSTRING", "turns": [TURN, ...]}, ...],
//	 "fail":  [{"status": 429, "times": 2, "match": "SUBSTRING"}, ...]}
//
// A model request picks the first rule whose match occurs in its first user
// text (the user's text before the first assistant turn, without the
// context blocks the agents add: <system-reminder>, <environment_context>,
// AGENTS.md instructions; an empty match takes every request). Its turn
// index is the number of assistant turns already in the request's history:
// Anthropic assistant messages; Responses model items in input (assistant
// messages, function_call, custom_tool_call, local_shell_call). So the
// server is stateless: parallel agents, retries and resumed sessions
// (`claude --resume`, `codex exec resume`, which resend the history) all
// get the right turn. Past a rule's last turn, or with no rule matching,
// the answer is the text "(fakemodel: no more turns)".
//
// A TURN is one of
//
//	{"text": "..."}                       a final text answer
//	{"tool": "NAME", "input": {...}}      a tool call
//	{"structured": {...}}                 the structured-output answer
//	{"status": 500, "body": "..."}        an HTTP error for this turn
//	{"hang": true}                        no answer until the client goes
//
// with an optional "usage": {"input_tokens": N, "output_tokens": M} (default
// 100 and 20). In every string of a tool's input, "{cwd}" is replaced by the
// agent's working directory, read from the request (Claude: "Primary
// working directory: DIR" in the environment; Codex: <cwd>DIR</cwd> in its
// environment context). Claude's Write, Edit and Read need absolute paths.
//
// The fail list answers the first "times" model requests (those whose first
// user text contains "match", when set) with "status", before any rule.
// Its counts live in the state file (FAKEMODEL_STATE, under a file lock),
// so they span processes and `fakemodel run` invocations. Errors carry
// "retry-after: 0" (and for Anthropic "retry-after-ms: 0",
// "x-should-retry: true"), so both CLIs retry at once: Claude Code retried
// two 429s within about a second; Codex printed "Reconnecting... 1/5" and
// "2/5" and went on.
//
// # Claude Code 2.1.328 (checked here)
//
// With ANTHROPIC_BASE_URL=http://127.0.0.1:PORT and any ANTHROPIC_API_KEY,
// `claude -p` sends only `POST /v1/messages?beta=true` (with
// DISABLE_TELEMETRY=1, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 and
// DISABLE_AUTOUPDATER=1 nothing else reached the server), stream: true,
// headers x-api-key, anthropic-version: 2023-06-01, anthropic-beta (a list
// starting claude-code-20250219), user-agent "claude-cli/2.1.328
// (external, sdk-cli)", x-claude-code-session-id (the session id),
// x-stainless-retry-count. The model asked for is claude-opus-5-5 and the
// JSON result prices the fake's tokens as that model (total_cost_usd
// 0.0016 for 200 input and 40 output tokens). The body has system (a list
// of text blocks), tools, messages, max_tokens, thinking, metadata,
// output_config. The first user message holds a <system-reminder> and the
// prompt; the environment (Primary working directory, whether it is a git
// repository, platform) comes in a message of role "system" after it.
// Tools offered: Agent, Bash, Edit, ListAgents, Read, ReportFindings,
// ScheduleWakeup, Skill, ToolSearch, Workflow, DeferredToolPlaceholder,
// Write (and StructuredOutput with --json-schema). Input shapes:
// Write {"file_path", "content"}, Edit {"file_path", "old_string",
// "new_string"}, Bash {"command", "description"}, Read {"file_path"}.
// The answer is the event stream message_start, content_block_start,
// content_block_delta (text_delta or input_json_delta), content_block_stop,
// message_delta (stop_reason end_turn or tool_use, usage.output_tokens),
// message_stop. A tool call and a final text are two requests; the
// result's num_turns is 2.
//
// --json-schema SCHEMA offers the model a tool "StructuredOutput" whose
// input_schema is SCHEMA ("You MUST call this tool exactly once at the end
// of your response"). A {"structured": OBJ} turn answers a tool_use of it
// with OBJ (where the tool is not offered, OBJ's JSON as text); the run
// ends at once (one request) and the JSON result carries OBJ in
// "structured_output" and its JSON text in "result". A model that
// answers plain text instead gets one more user message
// "[structured-output-enforce] You MUST call the StructuredOutput tool ...";
// if it answers text again the run still ends "subtype": "success",
// "is_error": false, with no "structured_output" field: check for it.
// Claude checks the object against SCHEMA itself: an invalid one gets a
// tool_result with is_error ("Output does not match required schema: ...")
// and the model tries again; after 5 invalid objects the run ends exit 1,
// is_error true, subtype "error_max_structured_output_retries".
//
// `claude -p --resume SESSION_ID PROMPT` resends the whole history (the
// new prompt last) under the same session id, so its turn index goes on
// from the first run's.
//
// Failures: a status turn is the same on every retry (the history does not
// change), so it fails for good. Claude Code retries 5xx, 429 and even 401
// with its own backoff whatever retry-after says: a lasting 500 took 11
// requests and 3 minutes, then exit 1 with is_error true, subtype still
// "success", api_error_status 500, terminal_reason "api_error" and result
// "API Error: 500 BODY. This is a server-side issue, ...".
// CLAUDE_CODE_MAX_RETRIES=2 bounds it to 3 requests (2 s); a lasting 429
// then ends "API Error: Request rejected (429) · BODY". A refused
// connection is retried for about 3 minutes and ends api_error
// "connection_failed". With no ANTHROPIC_API_KEY (and no login in HOME) it
// sends nothing and ends at once: exit 1, is_error true, result "Not
// logged in · Please run /login". Without the three switches it also sends
// HEAD /api/hello to the base URL (answered 404; it goes on).
//
// A Bash call not allowed by the permission rules (e.g. --allowedTools
// 'Bash(echo *)' for "echo hi > FILE": the redirection does not match) is
// denied without asking; the run ends exit 0, is_error false, and the
// denial is listed in permission_denials (tool_name, tool_use_id,
// tool_input).
//
// # Codex 0.169.0 (checked here)
//
// Codex reads no base-URL variable for its built-in provider
// (OPENAI_BASE_URL is ignored; it opens a WebSocket to api.openai.com).
// It reaches the fake through a provider given on the command line:
//
//	codex -c model_provider=fakemodel \
//	  -c 'model_providers.fakemodel={name="fakemodel", base_url="URL/v1",
//	      env_key="OPENAI_API_KEY", wire_api="responses"}' exec ...
//
// (CodexArgs builds these). It then sends `POST /v1/responses` with
// stream: true, store: false, no previous_response_id: the whole history
// every time, headers authorization (Bearer OPENAI_API_KEY), originator
// codex_exec, session-id and thread-id (the session id), user-agent
// "codex_exec/0.169.0 (...)". The input starts with developer messages,
// then a user message holding <environment_context> (<cwd>DIR</cwd>), then
// the prompt. CODEX_HOME must name an existing directory when set; unset,
// Codex makes ~/.codex. `codex exec` reads more prompt from stdin when
// stdin is not a terminal: give it /dev/null or the prompt. Without a git
// repository it needs --skip-git-repo-check.
//
// Tools depend on the model. The default model (gpt-6.1-sol) offers one
// tool, the freeform "exec" in namespace "functions" (code mode: the model
// writes JavaScript that calls nested tools, `await
// tools.exec_command({cmd: "..."})`, `await tools.apply_patch(PATCH)`),
// listed in an input item of type "additional_tools", not in "tools". Any
// other model name (-m) gets function tools in "tools": exec_command
// ({"cmd", "workdir", ...}), write_stdin, request_user_input, view_image,
// get_goal/create_goal/update_goal, a multi_agent_v1 namespace and
// web_search, and no apply_patch. A {"tool": NAME, "input": ARGS} turn is
// sent in the form the request offers: a function_call with ARGS as JSON
// arguments; a custom_tool_call with ARGS' one string "input" for a freeform
// tool; or, when only code mode's exec is offered, a custom_tool_call of
// exec running tools.NAME(ARGS) (apply_patch gets its patch text). So
// {"tool": "exec_command", "input": {"cmd": "echo hi > a.txt"}} and
// {"tool": "apply_patch", "input": {"input": "*** Begin Patch\n..."}} work
// with either; {"tool": "shell", "input": {"command": ["bash", "-lc", S]}}
// becomes exec_command of S. The answer is the event stream
// response.created, response.in_progress, response.output_item.added,
// response.output_text.delta / response.output_text.done (messages),
// response.output_item.done, response.completed (with usage); every event
// is needed up to response.completed.
//
// A lasting 429 or 5xx: six requests (five retries, at once with
// retry-after: 0), then the --json events error "exceeded retry limit,
// last status: 429 Too Many Requests" and turn.failed, exit 1. With no
// OPENAI_API_KEY it sends nothing: "Missing environment variable:
// `OPENAI_API_KEY`.", exit 1.
//
// --output-schema FILE sends text.format = {"type": "json_schema",
// "strict": true, "schema": ..., "name": "codex_output_schema"}; the final
// message's text is the JSON, which is what a {"structured": OBJ} turn
// answers (Codex does not check it against the schema: a text turn ends
// exit 0 all the same); -o FILE gets that text, and with --json the last
// "item.completed" event (type agent_message) carries it. --json also
// prints "thread.started" with thread_id (the session id for resume) and
// "turn.completed" with usage (input_tokens, cached_input_tokens,
// output_tokens, reasoning_output_tokens); Codex reports no cost.
// `codex exec resume SESSION_ID PROMPT` (it takes --json, -o,
// --output-schema, -m, -c, but not -C or -s: run it in the workspace and
// give the sandbox as -c sandbox_mode=...) resends the history with the new
// prompt last, under the same thread id.
//
// # fakemodel run
//
// `fakemodel run SCENARIO -- COMMAND ARGS...` serves on a loopback port
// while COMMAND runs, with Env in its environment: FAKEMODEL_URL,
// ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, OPENAI_BASE_URL, OPENAI_API_KEY,
// SPECSTACK_CODEX_PROVIDER_URL, NO_PROXY and no_proxy (loopback first),
// and the Claude Code switches that keep it off the network. Nested
// inside or around `fakegh run` (which points every proxy variable at a
// refusing port) both stay reachable: fakegh keeps loopback in NO_PROXY.
package fakemodel
