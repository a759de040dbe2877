import { ApiError } from '../../errors';

/**
 * The order state machine (written out in the guide). DRAFT comes first; issued orders go
 * DRAFT -> FINALIZING (sent) -> ACTIVE (acknowledged) -> COMPLETE; a pre-acknowledged order may go
 * DRAFT -> ACTIVE; a request for quote goes DRAFT -> BID_ACTIVE -> FINALIZING (awarded) or
 * BID_CANCELLED. Every open state may be CANCELLED. CANCELLED, BID_CANCELLED and COMPLETE are final.
 */
export type OrderState = 'DRAFT' | 'BID_ACTIVE' | 'BID_CANCELLED' | 'FINALIZING' | 'ACTIVE' | 'CANCELLED' | 'COMPLETE';
export type OrderMode = 'ISSUE_PO' | 'PRE_ACKNOWLEDGED' | 'REQUEST_FOR_QUOTE';

export const FINAL_STATES: ReadonlySet<OrderState> = new Set(['CANCELLED', 'BID_CANCELLED', 'COMPLETE']);

const MOVES: Record<OrderMode, Partial<Record<OrderState, OrderState[]>>> = {
  ISSUE_PO: { DRAFT: ['FINALIZING', 'CANCELLED'], FINALIZING: ['ACTIVE', 'CANCELLED'], ACTIVE: ['COMPLETE', 'CANCELLED'] },
  PRE_ACKNOWLEDGED: { DRAFT: ['FINALIZING', 'ACTIVE', 'CANCELLED'], FINALIZING: ['ACTIVE', 'CANCELLED'], ACTIVE: ['COMPLETE', 'CANCELLED'] },
  REQUEST_FOR_QUOTE: {
    DRAFT: ['BID_ACTIVE', 'CANCELLED'],
    BID_ACTIVE: ['FINALIZING', 'BID_CANCELLED', 'CANCELLED'],
    FINALIZING: ['ACTIVE', 'CANCELLED'],
    ACTIVE: ['COMPLETE', 'CANCELLED'],
  },
};

/** States an order may be created in: a draft, or already sent (an ERP pushing its own orders). */
const INITIAL: Record<OrderMode, OrderState[]> = {
  ISSUE_PO: ['DRAFT', 'FINALIZING', 'ACTIVE'],
  PRE_ACKNOWLEDGED: ['DRAFT', 'FINALIZING', 'ACTIVE'],
  REQUEST_FOR_QUOTE: ['DRAFT', 'BID_ACTIVE'],
};

export const canMove = (mode: OrderMode, from: OrderState, to: OrderState): boolean => from === to || (MOVES[mode][from] ?? []).includes(to);

export const initialStates = (mode: OrderMode): readonly OrderState[] => INITIAL[mode];

const stateConflict = (message: string) =>
  new ApiError(409, 'illegal-state-move', 'Conflict', [{ message: `body.state: ${message}`, field: 'body.state', rule: 'state-machine' }]);

export function assertMove(mode: OrderMode, from: OrderState, to: OrderState): void {
  if (canMove(mode, from, to)) return;
  const allowed = MOVES[mode][from] ?? [];
  throw stateConflict(
    `an order in state ${from} cannot move to ${to} (${mode}); ${allowed.length ? `allowed from ${from}: ${allowed.join(', ')}` : `${from} is final`}`,
  );
}

export function assertInitial(mode: OrderMode, state: OrderState): void {
  if (!INITIAL[mode].includes(state)) throw stateConflict(`a ${mode} order cannot be created in state ${state}; allowed: ${INITIAL[mode].join(', ')}`);
}

/** Items of an order in a final state cannot change. */
export function assertOpen(state: OrderState): void {
  if (FINAL_STATES.has(state)) {
    throw new ApiError(409, 'order-closed', 'Conflict', [
      { message: `order: the order is ${state}; its items can no longer change`, field: 'order', rule: 'state-machine' },
    ]);
  }
}
