// Issue 61: a price far from the app's model cost is saved only when the creator confirms it, with a
// button in the warning itself (not a second click on Save that nothing on the page asks for).
import { secondaryButton } from '@/components/ui/styles';

export function ConfirmPriceButton({
  onConfirm,
  disabled = false,
  label = 'Save at this price',
}: {
  onConfirm: () => void;
  disabled?: boolean;
  label?: string;
}) {
  return (
    <button type="button" className={`${secondaryButton} mt-2`} onClick={onConfirm} disabled={disabled}>
      {label}
    </button>
  );
}
