import { JsonData } from "./parts";

/** The page at /docs: an element for the reference, its configuration as data, and two static scripts (Scalar's bundle, then the starter). */
export function ApiReferencePage(props: { configuration: Record<string, unknown> }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>atc-edge API reference</title>
      </head>
      <body>
        <div id="app"></div>
        <JsonData id="api-reference-configuration" value={props.configuration} />
        <script src="/docs/scalar.js"></script>
        <script src="/docs/api-reference.js"></script>
      </body>
    </html>
  );
}
