// Preloaded into the Portkey child only (node --import; plain JavaScript, so Portkey runs without tsx), so that Portkey 1.15.2 can stream on Node.
// Without it every `stream: true` call through Portkey fails with 500 "Something went wrong"
// ("TypeError: immutable" in ResponseService.updateHeaders, Portkey-AI/gateway#1389 and #1550):
// @hono/node-server's Response, which replaces the global one, reuses the headers of the init it
// is given, and Portkey builds its streaming answer with the upstream's fetch Response as that
// init, whose headers fetch makes immutable; Portkey then appends its x-portkey-* headers to them.
// This copies an event-stream answer's headers into a new Response as fetch returns it (what
// Portkey's proposed fix, #1551, does later on). Blocking answers are returned untouched, so
// Portkey's blocking path is measured exactly as installed; a stream pays one header copy.
const fetchAsInstalled = globalThis.fetch;
// Captured before @hono/node-server replaces the global Response.
const FetchResponse = globalThis.Response;

globalThis.fetch = async (input, init) => {
  const response = await fetchAsInstalled(input, init);
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  return new FetchResponse(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
};
