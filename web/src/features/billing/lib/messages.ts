// The spec's error texts for the billing screen (section 8).
export const LOAD_FAILED = 'Failed to load billing data';
export const SUBSCRIBE_FAILED = 'Failed to initiate subscription';
export const CANCEL_FAILED = 'Failed to cancel subscription';
export const SETUP_FAILED = 'Failed to setup payment method';
export const DELETE_FAILED = 'Failed to delete payment method';
export const MAKE_DEFAULT_FAILED = 'Failed to make the card the default. Please try again.';
