// Which of Dify's stream events carry part of the answer (docs/design.md's streaming rule: a stream is
// charged once the caller has been sent any part of the answer). Text chunks are not the only
// carriers: an LLM node's node_finished holds its whole output, an agent's message_file a
// generated image, message_replace the moderated answer, tts_message the answer as speech,
// agent_thought the agent's thoughts and tool observations, workflow_finished every output.
// Structure-only events (workflow_started, node_started, an agent's empty first thought,
// tts_message_end…) carry none, and neither does the start node's node_finished, whose outputs
// echo the caller's own inputs. Decision 0026.

/** Whether a value holds anything a caller could use: a non-empty string, a number, a boolean, or a container holding one. */
export function holdsContent(value: unknown, depth = 0): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value !== '';
  if (typeof value === 'number' || typeof value === 'boolean') return true;
  // Deeper than any Dify payload: count it rather than walk it.
  if (depth > 16) return true;
  if (Array.isArray(value)) return value.some((item) => holdsContent(item, depth + 1));
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).some((item) => holdsContent(item, depth + 1));
  return false;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Events whose data.outputs (or a field like it) are a node's, an iteration's or a loop's results. */
const OUTPUT_EVENTS = new Set(['node_finished', 'node_retry', 'iteration_completed', 'loop_completed', 'workflow_finished']);

/** True when the caller would receive part of the answer with this Dify stream event. */
export function difyEventCarriesAnswer(event: Record<string, unknown>): boolean {
  const data = isRecord(event.data) ? event.data : {};
  switch (event.event) {
    case 'message':
    case 'agent_message':
    case 'message_replace':
      return holdsContent(event.answer);
    case 'text_chunk':
    case 'text_replace':
      return holdsContent(data.text);
    case 'message_file':
      // A file that belongs to the user is the caller's own upload, not something the app made.
      return event.belongs_to !== 'user' && (holdsContent(event.url) || holdsContent(event.id));
    case 'tts_message':
      return holdsContent(event.audio);
    case 'agent_thought':
      return holdsContent(event.thought) || holdsContent(event.observation) || holdsContent(event.tool_input) || holdsContent(event.message_files);
    case 'agent_log':
      return holdsContent(data.data);
    case 'iteration_next':
      return holdsContent(data.pre_iteration_output);
    case 'loop_next':
      return holdsContent(data.pre_loop_output);
    case 'workflow_started':
    case 'node_started':
    case 'iteration_started':
    case 'loop_started':
    case 'parallel_branch_started':
    case 'tts_message_end':
    case 'ping':
      return false;
    default:
      if (OUTPUT_EVENTS.has(String(event.event))) return data.node_type !== 'start' && holdsContent(data.outputs);
      // An event this code does not know: it carries the answer if it has what answers look like.
      return holdsContent(event.answer) || holdsContent(data.text) || (data.node_type !== 'start' && holdsContent(data.outputs));
  }
}
