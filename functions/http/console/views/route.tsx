import type { Session } from "../session";
import { CsrfField, Layout } from "./layout";
import { ErrorMessage, Notice } from "./parts";

export interface RouteCandidate {
  name: string;
  weight: number;
  description: string;
  why?: Record<string, Record<string, string | number> | undefined>;
}

/** A candidate's `why` as short phrases (which routing signals ranked it). */
export function whyPhrases(why: RouteCandidate["why"]): string[] {
  if (why === undefined) return [];
  const phrases: string[] = [];
  if (why.relevance !== undefined) phrases.push(`matches the task's words (rank ${why.relevance.rank})`);
  if (why.history !== undefined) phrases.push(`used by ${why.history.tasks} similar earlier task(s)`);
  if (why.transition !== undefined) phrases.push(`learned after ${why.transition.from} (weight ${why.transition.weight}, seen ${why.transition.observed}×)`);
  if (why.dataFlow !== undefined) phrases.push(`${why.dataFlow.from}'s ${why.dataFlow.field} fills its ${why.dataFlow.parameter}`);
  if (why.feeds !== undefined) phrases.push(`its ${why.feeds.field} fills ${why.feeds.to}'s ${why.feeds.parameter}`);
  if (why.sibling !== undefined) phrases.push(`same API as ${why.sibling.of}`);
  if (why.prior !== undefined) phrases.push(`often a later step (${why.prior.observed}×)`);
  return phrases;
}

/** Example tasks as links: following one fills the task field and shows its candidates, no script needed. */
function Examples(props: { tasks: string[] }) {
  if (props.tasks.length === 0) return null;
  return (
    <section aria-label="Example tasks">
      <p class="muted">Try a task from your catalog:</p>
      <ul id="route-examples">
        {props.tasks.map((task) => (
          <li>
            <a href={`/console/route?task=${encodeURIComponent(task)}`}>{task}</a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Type a task, see the ranked candidates and why; mark the right one (explicit feedback, learned at once). */
export function RoutePage(props: {
  session: Session;
  task: string;
  candidates: RouteCandidate[];
  via?: string;
  error?: string;
  notice?: string;
  /** Tasks to try (shown while no task is typed); each link fills the task field and routes it. */
  examples?: string[];
}) {
  return (
    <Layout title="Route" section="route" session={props.session}>
      <h1>Try routing</h1>
      <form method="get" action="/console/route" class="route-form">
        <label for="task">Task</label>
        <input id="task" name="task" type="text" required maxlength={10000} value={props.task} size={80} />
        <button type="submit">Find tools</button>
      </form>
      <Examples tasks={props.examples ?? []} />
      <ErrorMessage message={props.error} />
      <Notice message={props.notice} />
      {props.task === "" || props.candidates.length === 0 ? null : (
        <section aria-label="Candidates">
          <h2>Candidates{props.via === undefined ? "" : ` (${props.via})`}</h2>
          <ol id="route-candidates">
            {props.candidates.map((c) => (
              <li data-tool={c.name}>
                <strong>{c.name}</strong> <span class="muted">weight {c.weight}</span>
                <div>{c.description}</div>
                <ul class="why">
                  {whyPhrases(c.why).map((phrase) => (
                    <li>{phrase}</li>
                  ))}
                </ul>
                <form method="post" action="/console/route/mark">
                  <CsrfField session={props.session} />
                  <input type="hidden" name="task" value={props.task} />
                  <input type="hidden" name="tool" value={c.name} />
                  <button type="submit" class="secondary" aria-label={`Mark ${c.name} as the right tool`}>
                    This is the right tool
                  </button>
                </form>
              </li>
            ))}
          </ol>
        </section>
      )}
    </Layout>
  );
}
