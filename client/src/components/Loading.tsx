import { Spinner, View } from '@instructure/ui';

export function Loading() {
  return (
    <View as="div" display="block" textAlign="center" padding="large">
      {/* The delay keeps a fast chunk load from flashing a spinner. */}
      <Spinner renderTitle="Loading" size="medium" delay={300} />
    </View>
  );
}
