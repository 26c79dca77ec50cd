// Starts the API reference (Scalar's standalone bundle, loaded just before this script) with the
// configuration its page carries as JSON: the page has no inline script, so its Content-Security-
// Policy allows scripts from the service only.
const configuration = JSON.parse(document.getElementById("api-reference-configuration").textContent);
window.Scalar.createApiReference("#app", configuration);
