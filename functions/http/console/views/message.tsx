import type { Session } from "../session";
import { Layout } from "./layout";

/** A page that only says something: not found, refused, failed. */
export function MessagePage(props: { session?: Session | undefined; title: string; message: string; back?: { href: string; label: string } }) {
  return (
    <Layout title={props.title} section="tools" session={props.session}>
      <h1>{props.title}</h1>
      <p class="message" role="alert">
        {props.message}
      </p>
      {props.back === undefined ? null : (
        <p>
          <a href={props.back.href}>{props.back.label}</a>
        </p>
      )}
    </Layout>
  );
}
