// Which Dify stream events carry part of the answer (decision 0026); the gateway charges a stream
// once it sent one. answer-delivery.test.ts checks the same rule end to end, hang-up by hang-up.
import { describe, expect, it } from 'vitest';
import { difyEventCarriesAnswer, holdsContent } from './dify-answer-events.ts';

describe('difyEventCarriesAnswer', () => {
  const carrying: [string, Record<string, unknown>][] = [
    ['a text message', { event: 'message', answer: 'Hi' }],
    ['an agent message', { event: 'agent_message', answer: 'Hi' }],
    ['a workflow text chunk', { event: 'text_chunk', data: { text: 'Hi' } }],
    ['a moderation replacement', { event: 'message_replace', answer: 'Replaced' }],
    ['a workflow text replacement', { event: 'text_replace', data: { text: 'Replaced' } }],
    ['a generated file', { event: 'message_file', id: 'file-1', type: 'image', url: 'https://files.example/1.png' }],
    ['speech', { event: 'tts_message', audio: 'UklGRg==' }],
    ['an agent thought', { event: 'agent_thought', thought: 'I should search', observation: '', tool: '', tool_input: '' }],
    ['a tool observation', { event: 'agent_thought', thought: '', observation: 'Sunny', tool: 'weather', tool_input: '' }],
    ['a tool input the model wrote', { event: 'agent_thought', thought: '', observation: '', tool: 'search', tool_input: '{"q":"owls"}' }],
    ['an agent node’s log', { event: 'agent_log', data: { label: 'ROUND 1', data: { output: 'thinking' } } }],
    ['an LLM node’s outputs', { event: 'node_finished', data: { node_type: 'llm', outputs: { text: 'The answer' } } }],
    ['a classifier’s result', { event: 'node_finished', data: { node_type: 'question-classifier', outputs: { class_name: 'billing' } } }],
    ['an iteration’s step', { event: 'iteration_next', data: { index: 1, pre_iteration_output: 'first' } }],
    ['an iteration’s results', { event: 'iteration_completed', data: { outputs: { output: ['a', 'b'] } } }],
    ['a loop’s results', { event: 'loop_completed', data: { outputs: { count: 3 } } }],
    ['the workflow’s outputs', { event: 'workflow_finished', data: { status: 'succeeded', outputs: { text: 'Done' } } }],
    ['an unknown event with outputs', { event: 'some_new_event', data: { outputs: { text: 'x' } } }],
  ];
  for (const [name, event] of carrying) it(`counts ${name}`, () => expect(difyEventCarriesAnswer(event)).toBe(true));

  const structural: [string, Record<string, unknown>][] = [
    ['workflow_started', { event: 'workflow_started', data: { id: 'run', workflow_id: 'wf' } }],
    ['node_started', { event: 'node_started', data: { node_type: 'llm', inputs: { query: 'the caller’s question' } } }],
    ['the start node’s outputs (the caller’s own inputs)', { event: 'node_finished', data: { node_type: 'start', outputs: { 'sys.query': 'Hello?' } } }],
    ['a node with empty outputs', { event: 'node_finished', data: { node_type: 'code', outputs: {} } }],
    ['a node with only empty strings', { event: 'node_finished', data: { node_type: 'llm', outputs: { text: '' } } }],
    ['an agent’s empty first thought', { event: 'agent_thought', thought: '', observation: '', tool: '', tool_input: '', message_files: [] }],
    ['a thought naming only its tool', { event: 'agent_thought', thought: '', observation: '', tool: 'weather', tool_input: '' }],
    ['the caller’s own file echoed back', { event: 'message_file', id: 'file-2', type: 'image', belongs_to: 'user', url: 'https://files.example/mine.png' }],
    ['an empty message', { event: 'message', answer: '' }],
    ['an empty text chunk', { event: 'text_chunk', data: { text: '' } }],
    ['the end of speech', { event: 'tts_message_end', audio: '' }],
    ['iteration_started', { event: 'iteration_started', data: { node_type: 'iteration', inputs: { items: ['a'] } } }],
    ['the first iteration step', { event: 'iteration_next', data: { index: 0, pre_iteration_output: null } }],
    ['a workflow that finished with no outputs', { event: 'workflow_finished', data: { status: 'succeeded', outputs: null } }],
    ['message_end', { event: 'message_end', metadata: { usage: { prompt_tokens: 3 } } }],
    ['an unknown event without content', { event: 'some_new_event', data: { id: 'x' } }],
  ];
  for (const [name, event] of structural) it(`does not count ${name}`, () => expect(difyEventCarriesAnswer(event)).toBe(false));
});

describe('holdsContent', () => {
  it('finds content at any depth, and counts what is too deep to walk', () => {
    expect(holdsContent({ a: [{ b: '' }, { c: [0] }] })).toBe(true);
    expect(holdsContent({ a: [{ b: '' }, { c: [null] }] })).toBe(false);
    let deep: unknown = '';
    for (let i = 0; i < 40; i++) deep = { next: deep };
    expect(holdsContent(deep)).toBe(true);
  });
});
