import { raw } from "hono/html";
import type { StoredProtocol } from "../../../storage/protocol-store";
import type { ToolDefinition } from "../../../tools/definition";
import { wordDiffHtml } from "../description-diff";
import { highlightJson } from "../highlight";
import type { Session } from "../session";
import type { ToolStatusRow } from "../tool-status";
import { CsrfField, Layout } from "./layout";
import { Badge, counted, ErrorMessage, formatPercent, formatTime, Notice } from "./parts";

/** One protocol version with the value stored for it in KV (null when the value is gone or malformed; `problem` says which). */
export interface VersionView {
  version: number;
  source: string;
  score: number | null;
  createdAt: string;
  hash: string;
  current: boolean;
  pinned: boolean;
  jobId: string | null;
  protocol: StoredProtocol | null;
  problem?: string;
}

function describe(version: VersionView, fallback: string): string {
  const description = version.protocol?.description;
  return description !== undefined && description !== "" ? description : fallback;
}

function VersionCard(props: { version: VersionView; definition: ToolDefinition; toolHash: string }) {
  const { version } = props;
  return (
    <section class={`card${version.current ? " current" : ""}`} aria-label={`Protocol version ${version.version}`}>
      <h3>
        v{version.version} <span class="muted">{version.source}</span> {version.current ? <Badge status="ok" label="current" /> : null}{" "}
        {version.pinned ? <Badge status="warn" label="pinned" /> : null}
      </h3>
      <dl class="facts">
        <dt>Created</dt>
        <dd>{formatTime(version.createdAt)}</dd>
        <dt>Score</dt>
        <dd>{version.score === null ? "–" : formatPercent(version.score)}</dd>
        <dt>Definition</dt>
        <dd>{version.hash === props.toolHash ? "current" : "older definition"}</dd>
        {version.jobId === null ? null : (
          <>
            <dt>Job</dt>
            <dd>
              <a href={`/console/jobs/${version.jobId}`}>{version.jobId}</a>
            </dd>
          </>
        )}
      </dl>
      <p>{describe(version, props.definition.description || props.definition.summary || "(no description)")}</p>
      {version.protocol === null ? (
        <p class="muted">
          {version.problem === undefined
            ? "The stored protocol value could not be read."
            : `The stored protocol value is malformed and is not used: ${version.problem}`}
        </p>
      ) : (
        <details>
          <summary>Protocol document</summary>
          <pre>
            <code>{raw(highlightJson(version.protocol))}</code>
          </pre>
        </details>
      )}
    </section>
  );
}

/** The Play2Prompt comparison of an optimised version: description diff, scores and demonstrations. */
function OptimizationDiff(props: { version: VersionView }) {
  const { protocol } = props.version;
  if (protocol?.descriptionSource !== "optimized") return null;
  const { optimization } = protocol;
  const original = optimization.originalDescription;
  const improved = describe(props.version, "");
  return (
    <section aria-label={`Play2Prompt result of v${props.version.version}`}>
      <h3>
        Play2Prompt, v{props.version.version}: demonstrations solved {formatPercent(optimization.originalScore)} → {formatPercent(optimization.score)}
      </h3>
      <p class="diff">{raw(wordDiffHtml(original, improved))}</p>
      {optimization.demonstrations.length === 0 ? null : (
        <table>
          <caption>Demonstrations found by tool play, best first</caption>
          <thead>
            <tr>
              <th scope="col">Query</th>
              <th scope="col">Arguments</th>
              <th scope="col">Answer</th>
              <th scope="col" class="num">
                Score
              </th>
            </tr>
          </thead>
          <tbody>
            {optimization.demonstrations.map((d) => (
              <tr>
                <td>{d.query}</td>
                <td>
                  <code>{JSON.stringify(d.args)}</code>
                </td>
                <td>{d.answer}</td>
                <td class="num">{d.score.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What a tool page shows; `error` and `notice` come from the action that led here. */
interface ToolPageProps {
  session: Session;
  definition: ToolDefinition;
  hash: string;
  status: ToolStatusRow | undefined;
  versions: VersionView[];
  /** Its learned words (GET /v1/tools/{name}/learned-words); undefined when they could not be read. */
  learned?: LearnedWordsView | undefined;
  error?: string;
  notice?: string;
}

/** A tool's learned words as the API returns them. */
export interface LearnedWordsView {
  sources: number;
  terms: { term: string; weight: number }[];
  fromUse: { sources: number; words: number };
  fromExamples: { sources: number; words: number };
}

/** The words the tool learned from the requests that chose it: its strongest terms, and from how many conversations. */
function LearnedWords(props: { learned: LearnedWordsView | undefined }) {
  const { learned } = props;
  if (learned === undefined) return <p class="muted">Its learned words could not be read.</p>;
  const { fromUse: use, fromExamples: examples } = learned;
  if (learned.terms.length === 0)
    return (
      <p class="muted">
        Nothing learned yet: a request after which this tool is called (or a trajectory starting with it) teaches it its words, and so do example requests (an
        applied optimisation's, or the tenant's model's at import).
      </p>
    );
  return (
    <section aria-label="Learned words">
      <p>
        From {use.sources} {use.sources === 1 ? "conversation or trajectory" : "conversations and trajectories"}
        {examples.sources > 0 ? " and its example requests" : ""}; strongest first (index terms: words reduced to their stems).
      </p>
      <p class="learned-origins">
        {use.words} {use.words === 1 ? "word" : "words"} from use, {examples.words} from example requests (an applied optimisation's, or written by your model
        at import; each weighs half of what one conversation teaches).
      </p>
      <ul class="learned-words">
        {learned.terms.map((t) => (
          <li>
            <code>{t.term}</code> <span class="muted">{t.weight.toFixed(1)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A tool: definition, status, protocol versions side by side, and the actions on it. */
export function ToolPage(props: ToolPageProps) {
  const { definition, versions, session } = props;
  const base = `/console/tools/${encodeURIComponent(definition.name)}`;
  return (
    <Layout title={definition.name} section="tools" session={session}>
      <p>
        <a href="/console/tools">← All tools</a>
      </p>
      <h1>{definition.name}</h1>
      <ErrorMessage message={props.error} />
      <Notice message={props.notice} />
      <ToolFacts definition={definition} status={props.status} />

      <h2>Actions</h2>
      <ToolActions session={session} versions={versions} base={base} />

      <h2>Learned words</h2>
      <LearnedWords learned={props.learned} />

      <h2>Protocol versions</h2>
      <ProtocolVersions definition={definition} versions={versions} hash={props.hash} />

      <h2>Definition</h2>
      <DefinitionDetails definition={definition} />
    </Layout>
  );
}

/** The operation, its probe status and how its recent calls went. */
function ToolFacts(props: { definition: ToolDefinition; status: ToolStatusRow | undefined }) {
  const { definition, status } = props;
  return (
    <dl class="facts">
      <dt>Operation</dt>
      <dd>
        <code>
          {definition.method} {definition.serverUrl}
          {definition.path}
        </code>
      </dd>
      <dt>Probe</dt>
      <dd>
        <Badge status={status?.probe ?? "never"} />
        {status?.probeError ? <span class="muted"> {status.probeError}</span> : null}
      </dd>
      <dt>Recent calls</dt>
      <dd>
        {counted(status?.calls ?? 0, "call")}, {formatPercent(status?.successRate)} succeeded
      </dd>
      <dt>Recent evaluator scores</dt>
      <dd>{status === undefined || status.recentScores.length === 0 ? "none yet" : status.recentScores.join(", ")}</dd>
    </dl>
  );
}

/** Probe, optimise, and pin a version: any, the one before the current (roll back), or none (unpin). */
function ToolActions(props: { session: Session; versions: VersionView[]; base: string }) {
  const { session, versions, base } = props;
  const current = versions.find((v) => v.current);
  const previous = current === undefined ? undefined : [...versions].reverse().find((v) => v.version < current.version);
  return (
    <div class="actions">
      <form method="post" action={`${base}/probe`}>
        <CsrfField session={session} />
        <button type="submit">Probe now</button>
      </form>
      <form method="post" action={`${base}/optimize`}>
        <CsrfField session={session} />
        <button type="submit">Optimise description (Play2Prompt)</button>
      </form>
      {versions.length === 0 ? null : (
        <form method="post" action={`${base}/pin`}>
          <CsrfField session={session} />
          <div>
            <label for="pin-version">Version</label>
            <select id="pin-version" name="version">
              {versions.map((v) => (
                <option value={String(v.version)} selected={v.current}>
                  v{v.version} ({v.source})
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="secondary">
            Pin
          </button>
        </form>
      )}
      {previous === undefined ? null : <PinForm session={session} base={base} version={String(previous.version)} label={`Roll back to v${previous.version}`} />}
      {current?.pinned === true ? <PinForm session={session} base={base} version="" label="Unpin" /> : null}
    </div>
  );
}

/** One button that pins `version` ("" unpins). */
function PinForm(props: { session: Session; base: string; version: string; label: string }) {
  return (
    <form method="post" action={`${props.base}/pin`}>
      <CsrfField session={props.session} />
      <input type="hidden" name="version" value={props.version} />
      <button type="submit" class="secondary">
        {props.label}
      </button>
    </form>
  );
}

/** The protocol versions side by side, then the Play2Prompt result of each optimised one. */
function ProtocolVersions(props: { definition: ToolDefinition; versions: VersionView[]; hash: string }) {
  const { definition, versions } = props;
  return (
    <>
      {versions.length === 0 ? (
        <p class="empty">
          No documented protocol yet. Probe it with the button above, or:{" "}
          <code>{`curl -X POST $BASE/v1/probe -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"tools":["${definition.name}"]}'`}</code>
        </p>
      ) : (
        <div class="columns">
          {versions.map((v) => (
            <VersionCard version={v} definition={definition} toolHash={props.hash} />
          ))}
        </div>
      )}
      {versions.map((v) => (
        <OptimizationDiff version={v} />
      ))}
    </>
  );
}

/** The tool's description, its parameters as a table, and the whole definition as JSON. */
function DefinitionDetails(props: { definition: ToolDefinition }) {
  const { definition } = props;
  return (
    <>
      <p>{definition.description || definition.summary || <span class="muted">(no description)</span>}</p>
      {definition.parameters.length === 0 ? <p class="muted">No parameters.</p> : <ParameterTable parameters={definition.parameters} />}
      <details>
        <summary>Full definition (JSON)</summary>
        <pre>
          <code>{raw(highlightJson(definition))}</code>
        </pre>
      </details>
    </>
  );
}

function ParameterTable(props: { parameters: ToolDefinition["parameters"] }) {
  return (
    <table>
      <caption>Parameters</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">In</th>
          <th scope="col">Required</th>
          <th scope="col">Schema</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {props.parameters.map((p) => (
          <tr>
            <th scope="row">
              <code>{p.name}</code>
            </th>
            <td>{p.in}</td>
            <td>{p.required ? "yes" : "no"}</td>
            <td>
              <code>{JSON.stringify(p.schema)}</code>
            </td>
            <td>{p.description ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
